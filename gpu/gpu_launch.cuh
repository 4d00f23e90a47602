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
 * sm_90 and later only, so the build allows the early start only when every
 * architecture it compiles for is sm_90 or later (MNIST_EARLY_LAUNCH, set by
 * CMakeLists.txt); otherwise gpu_launch is a plain launch. */
#ifndef MNIST_EPILOGS_GPU_LAUNCH_CUH
#define MNIST_EPILOGS_GPU_LAUNCH_CUH

#include <cuda_runtime.h>

#ifndef MNIST_EARLY_LAUNCH
#error "MNIST_EARLY_LAUNCH must be 0 or 1 (CMakeLists.txt sets it)"
#endif

/* Waits for the kernel before this one on the stream (a no-op when there
 * is none, or when the launch did not allow an early start). */
__device__ __forceinline__ void gpu_wait_previous(void) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  cudaGridDependencySynchronize();
#endif
}

/* kernel<<<grid, block, 0, stream>>>(args...), allowed to start early.
 * Errors as a plain launch's (cudaGetLastError). */
template <typename... Params, typename... Args>
static inline cudaError_t gpu_launch(void (*kernel)(Params...), dim3 grid,
                                     dim3 block, cudaStream_t stream,
                                     Args... args) {
  cudaLaunchAttribute early;
  early.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  early.val.programmaticStreamSerializationAllowed = MNIST_EARLY_LAUNCH;
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
