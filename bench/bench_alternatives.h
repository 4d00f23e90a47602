/* bench_alternatives.h: mnist_bench --alternatives: the cuBLASLt epilogues
 * a backward step could use instead of today's (docs/backprop.md section
 * 11), timed one call at a time at the shapes issue 21 quotes: the data
 * call (m, n, k) = 1024x256x1024 and 4096x4096x4096 with plain DRELU /
 * DGELU, DRELU_BGRAD / DGELU_BGRAD fused, split (lt_split.h) and unfused;
 * the weight call 1024x1024x256 and 4096x4096x4096 with BGRADB fused and
 * unfused, and BGRADA on the swapped product dW (out, in) = dZ X^T (the
 * same bias gradient, dZ summed over the batch), each beside the plain
 * GEMM (DEFAULT) of its shape. */
#ifndef MNIST_EPILOGS_BENCH_ALTERNATIVES_H
#define MNIST_EPILOGS_BENCH_ALTERNATIVES_H

#include "gpu/gpu_context.h"

/* On random operands in the context's precision (and autotune mode):
 * per call its median time from CUDA-graph replays (bench_time_op), the
 * ratio to the plain GEMM of its shape, and the kernels it ran (the call
 * captured alone into a graph, its kernel nodes named); a call cuBLASLt
 * refuses prints "refused: <reason>" in its row. activation: -1 for the
 * ReLU and GELU rows, else only that lt_activation's (the weight call's
 * rows always). Prints to stdout; returns 0 or -1 (message on stderr). */
int bench_alternatives_run(gpu_context *ctx, int activation);

#endif
