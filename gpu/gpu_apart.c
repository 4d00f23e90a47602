/* gpu_apart.c: a CUDA context of its own (gpu_apart.h). */
#include "gpu/gpu_apart.h"

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>
#include <stdio.h>

/* The driver's `name` at the version whose signature the PFN type gives,
 * or NULL. */
static void *driver_function(const char *name, unsigned version) {
  void *fn = NULL;
  enum cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSuccess;
  if (cudaGetDriverEntryPointByVersion(name, &fn, version, cudaEnableDefault,
                                       &found) != cudaSuccess ||
      found != cudaDriverEntryPointSuccess)
    return NULL;
  return fn;
}

int gpu_apart_create(void **context, int device, char *why, size_t why_size) {
  *context = NULL;
  PFN_cuDeviceGet_v2000 device_get =
      (PFN_cuDeviceGet_v2000)driver_function("cuDeviceGet", 2000);
  PFN_cuCtxCreate_v12050 create =
      (PFN_cuCtxCreate_v12050)driver_function("cuCtxCreate", 12050);
  if (!device_get || !create) {
    snprintf(why, why_size,
             "the driver offers no cuDeviceGet or cuCtxCreate (CUDA 12.5 "
             "or newer)");
    return -1;
  }
  CUdevice dev = 0;
  CUcontext made = NULL;
  CUresult status = device_get(&dev, device);
  if (status == CUDA_SUCCESS) status = create(&made, NULL, 0, dev);
  if (status != CUDA_SUCCESS) {
    snprintf(why, why_size,
             "creating a context on device %d failed (CUresult %d)", device,
             (int)status);
    return -1;
  }
  *context = made;
  return 0;
}

void gpu_apart_destroy(void *context, int device) {
  if (!context) return;
  PFN_cuCtxDestroy_v4000 destroy =
      (PFN_cuCtxDestroy_v4000)driver_function("cuCtxDestroy", 4000);
  CUresult status =
      destroy ? destroy((CUcontext)context) : CUDA_ERROR_NOT_FOUND;
  if (status != CUDA_SUCCESS)
    fprintf(stderr,
            "gpu: destroying the context apart on device %d failed (CUresult "
            "%d); its memory stays held until the process ends\n",
            device, (int)status);
  /* cuCtxDestroy pops it; the primary is made current by name all the
   * same (the runtime's calls go to whatever is current). */
  cudaSetDevice(device);
}
