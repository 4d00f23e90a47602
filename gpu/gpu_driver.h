/* gpu_driver.h: a driver API function looked up at run time
 * (cudaGetDriverEntryPointByVersion), so that the programs link no libcuda
 * and still start, and say why, on a machine without a driver. */
#ifndef MNIST_EPILOGS_GPU_DRIVER_H
#define MNIST_EPILOGS_GPU_DRIVER_H

#ifdef __cplusplus
extern "C" {
#endif

/* The driver's `name` at `version` (the CUDA version whose signature the
 * caller's PFN_<name>_v<version> type gives), or NULL when this driver
 * lacks it. Cast the result to that type. */
void *gpu_driver_function(const char *name, unsigned version);

#ifdef __cplusplus
}
#endif

#endif
