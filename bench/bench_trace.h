/* bench_trace.h: mnist_bench --trace-step: one training step of each
 * small benchmark network (batch 256), node by node, from the project's
 * own events (Nsight Systems writes no report on our GPU machine). */
#ifndef MNIST_EPILOGS_BENCH_TRACE_H
#define MNIST_EPILOGS_BENCH_TRACE_H

#include "data/mnist.h"
#include "gpu/gpu_context.h"
#include "layers/fp8.h"
#include "lt/lt_shape.h"

/* Replays timed per network (after BENCH_TRACE_WARMUP untimed ones). */
#define BENCH_TRACE_REPLAYS 200
/* The largest batch a traced network has: the latency-bound ones. */
#define BENCH_TRACE_MAX_BATCH 256
#define BENCH_TRACE_WARMUP 20

/* For each network of bench_nets() with batch <= BENCH_TRACE_MAX_BATCH, as the
 * benchmark's "auto+pad" row (mode auto, units padded) in the context's
 * precision and `activation`: creates the trainer, runs one warm-up epoch,
 * captures one step (trainer_capture_step) and instruments a copy of it: per
 * kernel node, an event record node after its dependencies (ready) and one
 * after it (end), the existing edges unchanged. Replays the copy and the step
 * as captured, alternately, synchronising each, and prints the median
 * step times of both, then per kernel node in topological order its name,
 * lane, ready and end times from an event recorded before the launch,
 * duration and the kernels it waited for (edge types), and the critical
 * path, as a Markdown table on stdout. `only_network`: 0 for every such
 * network, i + 1 for bench_nets()[i] only (bench_selection); the units
 * padded to a multiple of pad_multiple (8 when 0); the graphs
 * instantiated with gpu_graph_flags(ctx); FP8 with recipe `fp8`. Returns
 * 0 or -1 (message on stderr). */
int bench_trace_steps(const mnist_dataset *data, gpu_context *ctx,
                      lt_activation activation, int only_network,
                      int pad_multiple, const fp8_recipe *fp8);

#endif
