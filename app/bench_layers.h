/* bench_layers.h: the single-layer part of mnist_bench: one layer's
 * forward RELU_AUX_BIAS against matmul + bias + ReLU kernels, and its
 * backward DRELU_BGRAD against matmul + mask + reduction, each beside the
 * plain matmul, as medians of CUDA-graph replays. */
#ifndef MNIST_EPILOGS_BENCH_LAYERS_H
#define MNIST_EPILOGS_BENCH_LAYERS_H

#include <stdio.h>

#include "../gpu/gpu_context.h"

/* Prints the table; with `json`, also one object per row ("first" says
 * whether a comma is due before the first, and is cleared). Returns 0 or
 * -1 (message on stderr). */
int bench_layers(FILE *json, gpu_context *ctx, int *first);

#endif
