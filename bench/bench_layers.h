/* bench_layers.h: the per-call part of mnist_bench: every cuBLASLt call of
 * one training step of a benchmark network, exactly as the step makes it
 * (shape, epilogue, the network's own buffers: mlp_step_calls), timed as
 * the plain matmul, the fused call and its unfused twin, each the median
 * of CUDA-graph replays. These are the shapes the networks run; no other
 * per-call conclusion is drawn. */
#ifndef MNIST_EPILOGS_BENCH_LAYERS_H
#define MNIST_EPILOGS_BENCH_LAYERS_H

#include <stdio.h>

#include "train/trainer.h"

/* The table's title and header. */
void bench_layer_calls_header(void);

/* Times and prints the calls of one step of the network that `t` trains
 * (named `network`, in precision `precision` and activation `activation`,
 * for the labels); with `json`, also one object per call ("first" says
 * whether a comma is due before the first, and is cleared). Overwrites the
 * network's activations and gradients (not its parameters). Returns 0 or
 * -1 (message on stderr). */
int bench_layer_calls(FILE *json, trainer *t, gpu_context *ctx,
                      const char *network, const char *precision,
                      const char *activation, int *first);

#endif
