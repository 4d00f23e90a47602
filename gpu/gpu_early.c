/* gpu_early.c: the per-kernel early-start cache of gpu_early.h. */
#include "gpu/gpu_early.h"

#include <cuda_runtime_api.h>

#include "gpu/gpu_arch.h"

int gpu_early_lookup(gpu_early_cache *cache, const void *kernel) {
  if (!cache) return 0;
  for (int i = 0; i < cache->count; i++)
    if (cache->kernels[i] == kernel) return cache->early[i];
  struct cudaFuncAttributes attr;
  if (cudaFuncGetAttributes(&attr, kernel) != cudaSuccess) {
    cudaGetLastError(); /* the launch itself reports the real error */
    return 0;
  }
  int early = gpu_early_start_allowed(attr.binaryVersion, attr.ptxVersion);
  if (cache->count < GPU_EARLY_KERNELS) {
    cache->kernels[cache->count] = kernel;
    cache->early[cache->count] = (unsigned char)early;
    cache->count++;
  }
  return early;
}
