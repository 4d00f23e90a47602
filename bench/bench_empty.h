/* bench_empty.h: an empty kernel, for measuring what one dependent launch
 * costs (the floor of a step's chain of kernels). */
#ifndef MNIST_EPILOGS_BENCH_EMPTY_H
#define MNIST_EPILOGS_BENCH_EMPTY_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Enqueues one empty kernel (1 block of 32 threads) on `stream`. Returns 0
 * or -1 (message on stderr). */
int bench_empty_kernel(cudaStream_t stream);

/* The empty kernel itself (no arguments), for graphs built node by node
 * (tests/test_bench_launches.c). */
const void *bench_empty_function(void);

#ifdef __cplusplus
}
#endif

#endif
