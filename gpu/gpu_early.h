/* gpu_early.h: which of the project's kernels may start early
 * (programmatic dependent launch, gpu/gpu_launch.cuh), decided per kernel
 * on the device it runs on and cached: the first launch of a kernel asks
 * cudaFuncGetAttributes once, later launches read the cache. For the
 * kernels that size their grid to the GPU (the FP8 cast), the same entry
 * keeps how many of their blocks the device holds at once. The cache
 * lives in the GPU context (gpu_context.early); no globals. */
#ifndef MNIST_EPILOGS_GPU_EARLY_H
#define MNIST_EPILOGS_GPU_EARLY_H

#ifdef __cplusplus
extern "C" {
#endif

/* More than the project has kernel instantiations (about 20); a kernel
 * that finds the cache full launches plainly, which is always safe. */
#define GPU_EARLY_KERNELS 64

typedef struct gpu_early_cache {
  int trigger; /* 1: kernels launched with this cache call the early-launch
                  trigger (GPU_CHAIN_TRIGGER, gpu_launch.cuh) */
  int count;
  const void *kernels[GPU_EARLY_KERNELS]; /* host stubs, as launched */
  unsigned char early[GPU_EARLY_KERNELS]; /* gpu_early_start_allowed;
                                             GPU_EARLY_UNASKED: not asked */
  int places[GPU_EARLY_KERNELS];          /* gpu_early_places; 0: not asked */
} gpu_early_cache;

enum { GPU_EARLY_UNASKED = 255 };

/* Whether `kernel` may start early on the current device: 1 or 0, from
 * the cache or, the first time, from its cudaFuncAttributes (binaryVersion
 * and ptxVersion >= 90, gpu_arch.h). A NULL cache, a failed query or a
 * full cache give 0 (a plain launch); a failed query is cached too, and
 * clears only its own error (one pending before it stays pending). */
int gpu_early_lookup(gpu_early_cache *cache, const void *kernel);

/* How many blocks of `kernel` at `threads` threads (and no dynamic
 * shared memory) the current device holds at once (its SMs times the
 * blocks an SM holds, at least its SMs), into *places: from the cache
 * or, the first time, from cudaOccupancyMaxActiveBlocksPerMultiprocessor
 * (each kernel launches at one block size). A NULL or full cache asks
 * every time. Returns the first failed query's error (nothing cached),
 * else cudaSuccess. */
int gpu_early_places(gpu_early_cache *cache, const void *kernel, int threads,
                     int *places);

/* The `trigger` argument of a project kernel: cache->trigger, or 0 for a
 * NULL cache. */
int gpu_early_trigger(const gpu_early_cache *cache);

#ifdef __cplusplus
}
#endif

#endif
