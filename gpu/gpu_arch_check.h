/* gpu_arch_check.h: the CUDA side of gpu_arch.h: gathers the facts (the
 * driver and runtime versions, the device's name and capability, a real
 * probe of the project's code on the device) and applies the rules, before
 * any training work. */
#ifndef MNIST_EPILOGS_GPU_ARCH_CHECK_H
#define MNIST_EPILOGS_GPU_ARCH_CHECK_H

#include <stddef.h>

#include "gpu/gpu_options.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The CMAKE_CUDA_ARCHITECTURES this binary was built with, e.g.
 * "75-real 80-real 90-real 90-virtual". */
const char *gpu_arch_list(void);

/* A project kernel (empty; compiled for the same architectures as every
 * other), for cudaFuncGetAttributes. */
const void *gpu_arch_probe_kernel(void);

/* The driver against the runtime, before any device is touched. Returns 1
 * when fine, else 0 with `why` saying the driver's version, the version
 * needed and what to do. */
int gpu_driver_usable(char *why, size_t why_size);

/* Whether this binary can run on `device` (driver, capability, a kernel
 * image for it). Returns 0, or -1 with the refusal on stderr, naming the
 * GPU, its capability, the architectures held and the rebuild command. */
int gpu_arch_check_device(int device);

#ifdef __cplusplus
}
#endif

#endif
