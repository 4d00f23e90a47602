/* gpu_launch.cuh: how the project's own kernels are launched: with
 * programmatic dependent launch (PDL, sm_90 and later). The GPU may then
 * start a kernel while the kernel before it on the stream is finishing; the
 * kernel's first statement, gpu_wait_previous(), waits until that kernel
 * has completed and its writes are visible. So a kernel computes exactly
 * what a plain launch computes, reads and writes nothing before the wait,
 * and only the gap between two dependent kernels of the step shrinks
 * (measured in docs/performance.md). Stream capture keeps the relation as a
 * programmatic edge of the graph. Every kernel launched with gpu_launch
 * must call gpu_wait_previous() first. The wait exists in device code for
 * sm_90 and later only, so the early start is asked for per kernel, only
 * where the code that runs on this GPU was compiled for sm_90 or later
 * (gpu/gpu_early.h, cached in the context); elsewhere it is a plain launch.
 * A multi-architecture build thus keeps the early start on Hopper and
 * later, and never starts a kernel JIT-compiled from older PTX early.
 *
 * gpu_allow_next(trigger) (GPU_CHAIN_TRIGGER) lets the kernel after this
 * one launch before this one ends: its blocks may then be placed and run
 * up to their own gpu_wait_previous(). That wait still waits for this
 * whole grid to complete and its writes to be flushed (CUDA programming
 * guide, "Programmatic Dependent Launch and Synchronization";
 * cudaGridDependencySynchronize), so where the trigger sits changes only
 * when the next kernel launches, never what it reads. The project's
 * kernels call it right after their own wait, uniformly in every thread. */
#ifndef MNIST_EPILOGS_GPU_LAUNCH_CUH
#define MNIST_EPILOGS_GPU_LAUNCH_CUH

#include <cuda_runtime.h>

#include "gpu/gpu_early.h"

/* Waits for the kernel before this one on the stream (a no-op when there
 * is none, or when the launch did not allow an early start). */
__device__ __forceinline__ void gpu_wait_previous(void) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();
#endif
}

/* With `trigger` set (a kernel argument, uniform over the grid): allows the
 * next kernel on the stream to launch now (sm_90 and later; elsewhere, or
 * without an early launch, a no-op). */
__device__ __forceinline__ void gpu_allow_next(int trigger) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if (trigger) cudaTriggerProgrammaticLaunchCompletion();
#else
  (void)trigger;
#endif
}

/* kernel<<<grid, block, 0, stream>>>(args...), allowed to start early
 * when `cache` says the kernel's code waits (a NULL cache: plain launch).
 * Errors as a plain launch's (cudaGetLastError). */
template <typename... Params, typename... Args>
static inline cudaError_t
gpu_launch(gpu_early_cache *cache, void (*kernel)(Params...), dim3 grid,
           dim3 block, cudaStream_t stream, Args... args) {
  cudaLaunchAttribute early;
  early.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  early.val.programmaticStreamSerializationAllowed =
      gpu_early_lookup(cache, (const void *)kernel);
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = 0;
  config.stream = stream;
  config.attrs = &early;
  config.numAttrs = 1;
  return cudaLaunchKernelEx(&config, kernel, args...);
}

#endif
