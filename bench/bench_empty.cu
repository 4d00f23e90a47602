/* bench_empty.cu: an empty kernel, for measuring what one dependent launch
 * costs (see bench_empty.h). */
#include <stdio.h>

#include "bench/bench_empty.h"
#include "gpu/gpu_check.h"

__global__ void empty_kernel(void) {}

extern "C" int bench_empty_kernel(cudaStream_t stream) {
  empty_kernel<<<1, 32, 0, stream>>>();
  CUDA_CHECK_KERNEL("empty_kernel");
  return 0;
}

extern "C" const void *bench_empty_function(void) {
  return (const void *)empty_kernel;
}
