/* gpu_apart.c: a CUDA context of its own (gpu_apart.h). */
#include "gpu/gpu_apart.h"

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>
#include <stdio.h>

#include "gpu/gpu_driver.h"

/* "CUDA_ERROR_OUT_OF_MEMORY (out of memory)", or the number when the
 * driver cannot name it. */
static void result_text(char *out, size_t size, CUresult status) {
  PFN_cuGetErrorName_v6000 name =
      (PFN_cuGetErrorName_v6000)gpu_driver_function("cuGetErrorName", 6000);
  PFN_cuGetErrorString_v6000 text =
      (PFN_cuGetErrorString_v6000)gpu_driver_function("cuGetErrorString", 6000);
  const char *n = NULL, *t = NULL;
  if (name) name(status, &n);
  if (text) text(status, &t);
  if (n)
    snprintf(out, size, "%s (%s)", n, t ? t : "no description");
  else
    snprintf(out, size, "CUresult %d", (int)status);
}

int gpu_apart_create(void **context, int device, char *why, size_t why_size) {
  *context = NULL;
  PFN_cuDeviceGet_v2000 device_get =
      (PFN_cuDeviceGet_v2000)gpu_driver_function("cuDeviceGet", 2000);
  PFN_cuCtxCreate_v12050 create =
      (PFN_cuCtxCreate_v12050)gpu_driver_function("cuCtxCreate", 12050);
  if (!device_get || !create) {
    int driver = 0;
    cudaDriverGetVersion(&driver);
    snprintf(why, why_size,
             "expected a driver with %s (CUDA 12.5 or newer), found driver "
             "version %d without it",
             device_get ? "cuCtxCreate" : "cuDeviceGet", driver);
    return -1;
  }
  CUdevice dev = 0;
  CUcontext made = NULL;
  CUresult status = device_get(&dev, device);
  if (status == CUDA_SUCCESS) status = create(&made, NULL, 0, dev);
  if (status != CUDA_SUCCESS) {
    char text[200];
    result_text(text, sizeof text, status);
    snprintf(why, why_size, "creating a context on device %d failed: %s",
             device, text);
    return -1;
  }
  *context = made;
  return 0;
}

int gpu_apart_enter(void *context, char *why, size_t why_size) {
  PFN_cuCtxPushCurrent_v4000 push =
      (PFN_cuCtxPushCurrent_v4000)gpu_driver_function("cuCtxPushCurrent", 4000);
  CUresult status = push ? push((CUcontext)context) : CUDA_ERROR_NOT_FOUND;
  if (status == CUDA_SUCCESS) return 0;
  char text[200];
  result_text(text, sizeof text, status);
  snprintf(why, why_size, "making the context apart current failed: %s", text);
  return -1;
}

void gpu_apart_leave(void *context, int device) {
  PFN_cuCtxGetCurrent_v4000 get =
      (PFN_cuCtxGetCurrent_v4000)gpu_driver_function("cuCtxGetCurrent", 4000);
  PFN_cuCtxPopCurrent_v4000 pop =
      (PFN_cuCtxPopCurrent_v4000)gpu_driver_function("cuCtxPopCurrent", 4000);
  CUcontext top = NULL;
  if (get && get(&top) == CUDA_SUCCESS && top != (CUcontext)context) {
    fprintf(stderr,
            "gpu: leaving a context apart on device %d: expected it current "
            "on this thread, found another; left as it is\n",
            device);
    return;
  }
  if (pop) pop(&top);
  cudaSetDevice(device); /* as gpu_apart_destroy: the primary, by name */
}

void gpu_apart_destroy(void *context, int device) {
  if (!context) return;
  PFN_cuCtxDestroy_v4000 destroy =
      (PFN_cuCtxDestroy_v4000)gpu_driver_function("cuCtxDestroy", 4000);
  CUresult status =
      destroy ? destroy((CUcontext)context) : CUDA_ERROR_NOT_FOUND;
  if (status != CUDA_SUCCESS) {
    char text[200];
    result_text(text, sizeof text, status);
    fprintf(stderr,
            "gpu: destroying the context apart on device %d failed: %s; its "
            "memory stays held until the process ends\n",
            device, text);
  }
  /* cuCtxDestroy pops it; the primary is made current by name all the
   * same (the runtime's calls go to whatever is current). */
  cudaSetDevice(device);
}

int gpu_apart_cycle(int device, char *why, size_t why_size) {
  void *context = NULL;
  if (gpu_apart_create(&context, device, why, why_size) != 0) return -1;
  gpu_apart_destroy(context, device);
  return 0;
}
