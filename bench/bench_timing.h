/* bench_timing.h: timing of GPU work for mnist_bench: a piece of work
 * captured into a CUDA graph and replayed, median of the replays; and the
 * two ceilings the benchmark reports against (the matmul rate, the cost of
 * one dependent launch). */
#ifndef MNIST_EPILOGS_BENCH_TIMING_H
#define MNIST_EPILOGS_BENCH_TIMING_H

#include "gpu/gpu_context.h"
#include "lt/lt_matmul.h"

/* One call of the wrapper or its unfused twin. */
typedef int (*bench_op)(gpu_context *ctx, const lt_matmul_call *call);

/* Median microseconds per call of `op` from CUDA-graph replays of 20
 * calls (one call first builds the plan, outside the capture). Returns 0
 * or -1 (message on stderr). */
int bench_time_op(gpu_context *ctx, bench_op op, const lt_matmul_call *call,
                  float *us);

/* The GPU's matmul rate in the context's precision: a square DEFAULT
 * matmul of `size` through the wrapper, timed from graph replays, in
 * TFLOP/s. */
int bench_matmul_rate(gpu_context *ctx, int size, double *tflops);

/* Microseconds per kernel in a graph of 200 dependent empty kernels: the
 * least any kernel on a step's critical path costs. */
int bench_launch_cost(gpu_context *ctx, float *us);

#endif
