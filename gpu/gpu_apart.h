/* gpu_apart.h: a CUDA context of its own on a device, beside the device's
 * primary context (the one the runtime API uses), for work whose side
 * effects must not reach the primary: the kernels a context loads stay
 * loaded until it is destroyed, and on the H200 a training step ran 4 %
 * slower in a process whose context had loaded cuBLASLt's other
 * candidates for its plans, though it ran none of them
 * (docs/performance.md, "Judged by the step"). The step tuner times those
 * candidates in such a context (train/trainer.c). The opposite side
 * effect is wanted too: a context made and destroyed after a run's
 * buffers and warm-up made that run faster (gpu_apart_cycle).
 *
 * The driver API's functions are looked up at run time
 * (cudaGetDriverEntryPointByVersion): the programs link no libcuda, so
 * they still start, and say why, on a machine without a driver. */
#ifndef MNIST_EPILOGS_GPU_APART_H
#define MNIST_EPILOGS_GPU_APART_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Creates a context on `device` and makes it current on this thread: the
 * runtime API's calls on this thread use it until gpu_apart_destroy.
 * Returns 0 with *context set (a CUcontext), or -1 with why[] saying why
 * (nothing changed). */
int gpu_apart_create(void **context, int device, char *why, size_t why_size);

/* Makes a context gpu_apart_create made (on any thread, and not current
 * on this one) current on this thread, above the one that was. Returns 0,
 * or -1 with why[] saying why (nothing changed). */
int gpu_apart_enter(void *context, char *why, size_t why_size);

/* Takes `context` (made current here by gpu_apart_create or
 * gpu_apart_enter, and on top) off this thread and makes `device`'s
 * primary context current again; when another context is on top, says so
 * on stderr and changes nothing. */
void gpu_apart_leave(void *context, int device);

/* Destroys the context gpu_apart_create made (with everything allocated
 * and loaded in it; a failure is said on stderr) and makes `device`'s
 * primary context current again. A no-op on NULL. */
void gpu_apart_destroy(void *context, int device);

/* Creates a context on `device` and destroys it at once, nothing loaded
 * or allocated in it; the primary context is current again after. On the
 * H200 a run whose buffers were allocated and whose step had run once
 * (its kernels loaded) before this, trained 0.6-0.9 % faster in every
 * epoch after it; made before the buffers, it changed nothing; the cause is
 * not known (docs/performance.md, "Session 14"; 7 % in fp8 at mnist_train's
 * default network, "Session 21"). About 0.2 s. Returns
 * 0 (also when destroying it failed: gpu_apart_destroy says so on stderr,
 * and the context stays until the process ends), or -1 with why[] saying
 * why no context was made. */
int gpu_apart_cycle(int device, char *why, size_t why_size);

#ifdef __cplusplus
}
#endif

#endif
