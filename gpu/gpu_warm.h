/* gpu_warm.h: the device's primary context made on a thread of its own
 * while the caller does CPU work (mnist_train reads and unpacks the data
 * meanwhile: on the H200 each took about a quarter of the default run's
 * wall clock, one after the other). Failures are not reported here: the
 * caller's own CUDA calls, after gpu_warm_destroy, meet and report them. */
#ifndef MNIST_EPILOGS_GPU_WARM_H
#define MNIST_EPILOGS_GPU_WARM_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gpu_warm gpu_warm;

/* Starts initialising `device` (cudaInitDevice) on a new thread. Returns
 * the handle, or NULL when no thread could start (nothing to join). */
gpu_warm *gpu_warm_create(int device);

/* Waits for the thread (joins it) and frees the handle; a no-op on NULL.
 * Call before any other CUDA call of the process. */
void gpu_warm_destroy(gpu_warm *warm);

#ifdef __cplusplus
}
#endif

#endif
