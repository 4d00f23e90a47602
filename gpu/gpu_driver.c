/* gpu_driver.c: driver API functions looked up at run time
 * (gpu_driver.h). */
#include "gpu/gpu_driver.h"

#include <cuda_runtime_api.h>

void *gpu_driver_function(const char *name, unsigned version) {
  void *fn = NULL;
  enum cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSuccess;
  if (cudaGetDriverEntryPointByVersion(name, &fn, version, cudaEnableDefault,
                                       &found) != cudaSuccess ||
      found != cudaDriverEntryPointSuccess)
    return NULL;
  return fn;
}
