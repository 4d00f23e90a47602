/* gpu_early.h: which of the project's kernels may start early
 * (programmatic dependent launch, gpu/gpu_launch.cuh), decided per kernel
 * on the device it runs on and cached: the first launch of a kernel asks
 * cudaFuncGetAttributes once, later launches read the cache. The cache
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
  unsigned char early[GPU_EARLY_KERNELS]; /* gpu_early_start_allowed */
} gpu_early_cache;

/* Whether `kernel` may start early on the current device: 1 or 0, from
 * the cache or, the first time, from its cudaFuncAttributes (binaryVersion
 * and ptxVersion >= 90, gpu_arch.h). A NULL cache, a failed query or a
 * full cache give 0 (a plain launch); a failed query is cached too, and
 * clears only its own error (one pending before it stays pending). */
int gpu_early_lookup(gpu_early_cache *cache, const void *kernel);

/* The `trigger` argument of a project kernel: cache->trigger, or 0 for a
 * NULL cache. */
int gpu_early_trigger(const gpu_early_cache *cache);

#ifdef __cplusplus
}
#endif

#endif
