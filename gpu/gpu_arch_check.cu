/* gpu_arch_check.cu: gathers what gpu_arch.h decides on: the versions, the
 * device, and a real probe: cudaFuncGetAttributes on a project kernel says
 * cudaErrorNoKernelImageForDevice when the binary has no code for the GPU.
 * MNIST_CUDA_ARCHITECTURES comes from CMakeLists.txt (this file only). */
#include "gpu/gpu_arch_check.h"

#include <cuda_runtime.h>
#include <stdio.h>

#include "gpu/gpu_arch.h"

#ifndef MNIST_CUDA_ARCHITECTURES
#error "MNIST_CUDA_ARCHITECTURES must name the build's list (CMakeLists.txt)"
#endif

__global__ void arch_probe_kernel(void) {}

extern "C" const char *gpu_arch_list(void) {
  return MNIST_CUDA_ARCHITECTURES;
}

extern "C" const void *gpu_arch_probe_kernel(void) {
  return (const void *)arch_probe_kernel;
}

static void versions(int *driver, int *runtime) {
  *driver = 0;
  *runtime = 0;
  if (cudaDriverGetVersion(driver) != cudaSuccess) *driver = 0;
  if (cudaRuntimeGetVersion(runtime) != cudaSuccess) *runtime = CUDART_VERSION;
}

extern "C" int gpu_driver_usable(char *why, size_t why_size) {
  int driver, runtime;
  versions(&driver, &runtime);
  return gpu_driver_decide(why, why_size, driver, runtime, GPU_CODE_UNKNOWN) ==
         GPU_ARCH_OK;
}

/* 1 when the probe kernel has code for the current device, 0 when it has
 * none, -1 when the question failed otherwise (the error is cleared). */
static int probe_kernel_image(void) {
  cudaFuncAttributes attr;
  cudaError_t status = cudaFuncGetAttributes(&attr, arch_probe_kernel);
  cudaGetLastError();
  if (status == cudaSuccess) return 1;
  if (status == cudaErrorNoKernelImageForDevice ||
      status == cudaErrorInvalidDeviceFunction)
    return 0;
  return -1;
}

extern "C" int gpu_arch_check_device(int device) {
  gpu_arch_facts f = {};
  versions(&f.driver_version, &f.runtime_version);
  f.arch_list = MNIST_CUDA_ARCHITECTURES;
  f.kernel_image = -1;
  char msg[1024];
  /* The driver first: without a usable one no device call below works. */
  if (gpu_driver_decide(msg, sizeof msg, f.driver_version, f.runtime_version,
                        GPU_CODE_UNKNOWN) != GPU_ARCH_OK) {
    fprintf(stderr, "gpu: %s\n", msg);
    return -1;
  }
  struct cudaDeviceProp prop;
  cudaError_t status = cudaGetDeviceProperties(&prop, device);
  if (status != cudaSuccess) {
    fprintf(stderr, "gpu: reading device %d's properties failed: %s (%s)\n",
            device, cudaGetErrorName(status), cudaGetErrorString(status));
    return -1;
  }
  f.device_name = prop.name;
  f.capability = prop.major * 10 + prop.minor;
  if (cudaSetDevice(device) == cudaSuccess)
    f.kernel_image = probe_kernel_image();
  if (gpu_arch_decide(msg, sizeof msg, &f) != GPU_ARCH_OK) {
    fprintf(stderr, "gpu: %s\n", msg);
    return -1;
  }
  return 0;
}
