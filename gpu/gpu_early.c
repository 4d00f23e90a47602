/* gpu_early.c: the per-kernel early-start cache of gpu_early.h. */
#include "gpu/gpu_early.h"

#include <cuda_runtime_api.h>

#include "gpu/gpu_arch.h"

int gpu_early_lookup(gpu_early_cache *cache, const void *kernel) {
  if (!cache) return 0;
  for (int i = 0; i < cache->count; i++)
    if (cache->kernels[i] == kernel) return cache->early[i];
  /* An error pending before the query belongs to an earlier call and is
   * left for its check; only an error the query made itself is cleared. */
  cudaError_t pending = cudaPeekAtLastError();
  struct cudaFuncAttributes attr;
  int early = 0; /* a failed query: a plain launch, which reports it */
  if (cudaFuncGetAttributes(&attr, kernel) == cudaSuccess)
    early = gpu_early_start_allowed(attr.binaryVersion, attr.ptxVersion);
  else if (pending == cudaSuccess)
    cudaGetLastError();
  if (cache->count < GPU_EARLY_KERNELS) {
    cache->kernels[cache->count] = kernel;
    cache->early[cache->count] = (unsigned char)early;
    cache->count++;
  }
  return early;
}

int gpu_early_trigger(const gpu_early_cache *cache) {
  return cache ? cache->trigger : 0;
}
