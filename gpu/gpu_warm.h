/* gpu_warm.h: the device's primary context made on a thread of its own
 * while the caller does CPU work (mnist_train reads and unpacks the data
 * meanwhile: on the H200 each took about a quarter of the default run's
 * wall clock, one after the other), then, on the same thread, the caller's
 * own start-up work on the GPU (mnist_train's checks of the device and of
 * cuBLASLt's plans: app/gpu_start_check.h). Failures of the start-up are
 * not reported here: the job does not run, and the caller, told so by
 * gpu_warm_destroy, does its work itself, meeting and reporting them. */
#ifndef MNIST_EPILOGS_GPU_WARM_H
#define MNIST_EPILOGS_GPU_WARM_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct gpu_warm gpu_warm;

/* The caller's work on the thread, after the primary context is made; it
 * keeps its results in `arg` for the caller to read after
 * gpu_warm_destroy. */
typedef void (*gpu_warm_job)(void *arg);

/* Starts initialising `device` (cudaInitDevice) on a new thread, then
 * (when that succeeded) runs job(arg) there; `job` may be NULL. Returns
 * the handle, or NULL when no thread could start (nothing to join, no job
 * run). */
gpu_warm *gpu_warm_create(int device, gpu_warm_job job, void *arg);

/* Waits for the thread (joins it) and frees the handle. Returns 1 when the
 * job ran, 0 when it did not (NULL handle, no job, or the device failed to
 * start). Call before any other CUDA call of the process. */
int gpu_warm_destroy(gpu_warm *warm);

#ifdef __cplusplus
}
#endif

#endif
