/* bench_layers.h: the per-call part of mnist_bench: every cuBLASLt call of
 * one training step of a benchmark network, exactly as the step makes it
 * (shape, epilogue, the network's own buffers: mlp_step_calls), timed as
 * the plain matmul, the fused call and its unfused twin, each the median
 * of CUDA-graph replays. These are the shapes the networks run; no other
 * per-call conclusion is drawn. */
#ifndef MNIST_EPILOGS_BENCH_LAYERS_H
#define MNIST_EPILOGS_BENCH_LAYERS_H

#include "bench/bench_train.h"

/* For each network and each selected precision, with ReLU (or the
 * selected activation): a fused trainer trained one epoch, then every
 * call of its step timed and printed, and added to run->json as "calls"
 * entries. Returns 0 or -1 (message on stderr). */
int bench_layers_run(const bench_run *run);

#endif
