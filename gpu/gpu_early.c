/* gpu_early.c: the per-kernel early-start cache of gpu_early.h. */
#include "gpu/gpu_early.h"

#include <cuda_runtime_api.h>

#include "gpu/gpu_arch.h"

/* The entry of `kernel`, added with nothing asked when new; -1 when
 * the cache is NULL or full. */
static int entry_of(gpu_early_cache *cache, const void *kernel) {
  if (!cache) return -1;
  for (int i = 0; i < cache->count; i++)
    if (cache->kernels[i] == kernel) return i;
  if (cache->count == GPU_EARLY_KERNELS) return -1;
  cache->kernels[cache->count] = kernel;
  cache->early[cache->count] = GPU_EARLY_UNASKED;
  cache->places[cache->count] = 0;
  return cache->count++;
}

int gpu_early_lookup(gpu_early_cache *cache, const void *kernel) {
  if (!cache) return 0;
  int i = entry_of(cache, kernel);
  if (i >= 0 && cache->early[i] != GPU_EARLY_UNASKED) return cache->early[i];
  /* An error pending before the query belongs to an earlier call and is
   * left for its check; only an error the query made itself is cleared. */
  cudaError_t pending = cudaPeekAtLastError();
  struct cudaFuncAttributes attr;
  int early = 0; /* a failed query: a plain launch, which reports it */
  if (cudaFuncGetAttributes(&attr, kernel) == cudaSuccess)
    early = gpu_early_start_allowed(attr.binaryVersion, attr.ptxVersion);
  else if (pending == cudaSuccess)
    cudaGetLastError();
  if (i >= 0) cache->early[i] = (unsigned char)early;
  return early;
}

int gpu_early_places(gpu_early_cache *cache, const void *kernel, int threads,
                     int *places) {
  int i = entry_of(cache, kernel);
  if (i >= 0 && cache->places[i] > 0) {
    *places = cache->places[i];
    return cudaSuccess;
  }
  int device, sms, per_sm;
  cudaError_t e = cudaGetDevice(&device);
  if (e == cudaSuccess)
    e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  if (e == cudaSuccess)
    e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads,
                                                      0);
  if (e != cudaSuccess) return e;
  *places = sms * (per_sm > 0 ? per_sm : 1);
  if (i >= 0) cache->places[i] = *places;
  return cudaSuccess;
}

int gpu_early_trigger(const gpu_early_cache *cache) {
  return cache ? cache->trigger : 0;
}
