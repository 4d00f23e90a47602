/* trainer.h: trains an MLP on an MNIST-format data set on the GPU.
 *
 * Owns: the data on the GPU (epoch_data.h), the learning-rate schedule,
 * the on-GPU loss/accuracy accumulators, the network, and (with graphs on)
 * the CUDA graphs of one training epoch and one test pass. Per epoch the
 * host sends one permutation and one schedule and reads the accumulators
 * once; no step waits for the host.
 */
#ifndef MNIST_EPILOGS_TRAINER_H
#define MNIST_EPILOGS_TRAINER_H

#include <cuda_runtime_api.h>

#include "data/mnist.h"
#include "layers/mlp.h"
#include "train/step_tune.h"
#include "train/train_config.h"

typedef struct epoch_stats {
  double train_loss, train_accuracy; /* mean over the epoch's batches */
  double test_loss, test_accuracy;   /* over the whole test split */
  float train_ms;                    /* CUDA events around training only */
  float test_ms;
} epoch_stats;

typedef struct trainer trainer;

/* Checks the configuration (784-...-10, batch >= 1, epochs >= 1), uploads
 * the data, creates and initialises the network from config->seed (or
 * from config->initial_params: a loaded checkpoint), builds
 * every cuBLASLt plan with one throw-away forward/backward per batch shape
 * (no update), chooses how each call runs by timing the step (the step
 * tuner, train/step_tune.h: the network's state is put back after it),
 * with config->context_cycle makes and destroys a CUDA context where the
 * tuner made none apart (gpu_apart_cycle), and captures the graphs.
 * Returns 0, or -1 with a message on stderr. */
int trainer_create(trainer **out, gpu_context *ctx, const mnist_dataset *data,
                   const trainer_config *config);
void trainer_destroy(trainer *t);

/* One epoch over the training split in a fresh order drawn from the seed
 * and the epoch number, then one pass over the test split. Fills `stats`.
 * Returns 0, -1 on a GPU error (stats untouched), or 1 when the training
 * loss was not finite (NaN or infinity). */
int trainer_run_epoch(trainer *t, int epoch, epoch_stats *stats);

/* Captures one full training step (the first batch of the epoch, the graph
 * graph_count_step counts: bench/graph_count.h) into *graph, which the
 * caller destroys;
 * nothing runs. Returns 0, or -1 with a message on stderr. */
int trainer_capture_step(trainer *t, cudaGraph_t *graph);

/* Launches one full training step on the first batch from the host (no
 * graph) and waits for it: for profilers that list kernels one by one. */
int trainer_step_once(trainer *t);

int trainer_steps_per_epoch(const trainer *t);

/* Optimiser steps run so far. */
int trainer_steps_done(const trainer *t);

/* Copies the FP32 master parameters into h_slab (layout.slab_floats
 * floats). Returns 0 or -1. */
int trainer_get_params(const trainer *t, float *h_slab);

/* The normalisation the run's data uses: x = pixel * scale + shift
 * (config.pixel_scale/shift when given, else the training split's). */
void trainer_pixel_transform(const trainer *t, float *scale, float *shift);

const mlp *trainer_network(const trainer *t);

/* What the step tuner chose at trainer_create, and its evidence
 * (train/step_tune.h: step_tune_print prints it). */
const step_tune_report *trainer_tune_report(const trainer *t);

/* The ms trainer_create spent making and destroying a context
 * (trainer_config.context_cycle); 0 when it made none (the option off, or
 * the step tuner's context apart stood for it). */
double trainer_cycle_ms(const trainer *t);

/* The cuBLASLt calls of a training step on the first training batch of the
 * current epoch (mlp_step_calls): after trainer_create the batches are
 * gathered, so the calls read real images and the buffers the last step
 * left. Returns the count. */
int trainer_step_calls(const trainer *t, mlp_call calls[MLP_MAX_STEP_CALLS]);

#endif
