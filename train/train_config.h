/* train_config.h: what a training run is (network, batch, schedule,
 * optimiser, seed, mode, graphs), with the project's defaults defined here
 * and nowhere else. Plain C: the option parsers fill it, the trainer
 * (trainer.h) runs it. */
#ifndef MNIST_EPILOGS_TRAIN_CONFIG_H
#define MNIST_EPILOGS_TRAIN_CONFIG_H

#include <stddef.h>

#include "data/mnist.h"
#include "gpu/gpu_options.h"
#include "layers/fp8.h"
#include "layers/mlp_layout.h"
#include "layers/mlp_mode.h"
#include "lt/lt_shape.h"
#include "train/tune_cache.h"

typedef struct trainer_config {
  int widths[MLP_MAX_LAYERS + 1]; /* 784, hidden..., 10 */
  int depth;                      /* linear layers */
  int batch;
  int epochs; /* for the learning-rate schedule */
  float lr, momentum;
  int cosine;              /* 1: lr * (1 + cos(pi t / T)) / 2 per
                              step t of T; 0: constant lr */
  unsigned long long seed; /* initial weights and batch order */
  mlp_mode mode;
  int graphs;               /* 1: replay each epoch as a CUDA graph */
  float loss_scale;         /* 0: the network's default (mlp.h) */
  lt_activation activation; /* of the hidden layers */
  int max_steps;            /* > 0: stop after this many optimiser steps (the
                              schedule still spans `epochs`); 0: all */
  int file_order; /* 1: batches in file order every epoch, no shuffle */
  /* x = pixel * pixel_scale + pixel_shift when pixel_scale > 0 (a
   * checkpoint's own normalisation); 0: mnist_pixel_transform of the
   * training split. */
  float pixel_scale, pixel_shift;
  int pad_units;    /* 1: widths padded (to multiples of pad_multiple)
                       with units that stay zero (mlp_options.pad_units) */
  int pad_multiple; /* with pad_units: 8 (or 0), 16 or 32
                       (mlp_options.pad_multiple) */
  /* The step tuner (train/step_tune.h): its budget of timed steps (ms of
   * GPU time; 0: STEP_TUNE_BUDGET_MS), how it uses the tuning cache, and
   * the cache's folder (NULL: the default, train/tune_cache.h). */
  float tune_budget_ms;
  tune_cache_mode tune_cache;
  const char *tune_cache_dir;
  /* Not NULL: the choices of an earlier trainer of the same step in this
   * process (its step_tune_report.entry: mnist_bench's later creation
   * orders), taken as from the cache, without a search; borrowed during
   * trainer_create only (the trainer's copy of its config drops it). */
  const tune_cache_entry *tune_given;
  int tune_apart;    /* 1: the tuner times candidates in a CUDA context of its
                        own (gpu/gpu_apart.h), so the training's context loads
                        only the kernels its step runs; 0: in the training's */
  int context_cycle; /* 1: after the warm-up and the tuner, a CUDA context
                        made and destroyed (gpu_apart_cycle), unless the
                        tuner made one there (it tuned apart); 0: none
                        (the defaults'; mnist_train's default is 1) */
  fp8_recipe fp8;    /* --precision fp8's recipe (zeroed: the defaults) */
  /* The network's first parameters instead of the seed's (a loaded
   * checkpoint: its real units' layout and FP32 slab, borrowed until
   * trainer_create returns): set before the warm-up and the graphs, so
   * an FP8 network's first pass calibrates on them. NULL: from seed. */
  const mlp_layout *initial_layout;
  const float *initial_params;
} trainer_config;

/* The defaults: 784-1024-1024-10, batch 128, 5 epochs, lr 0.05 with the
 * cosine schedule, momentum 0.9, seed 1, fused, graphs on, the tuning
 * cache used. Chosen to reach 98 % test accuracy robustly in 5 epochs
 * (README.md). */
trainer_config trainer_config_defaults(void);

/* What a precision needs of the network: FP8 pads every width to a
 * multiple of 16 (pad_units = 1, pad_multiple 16, or 32 when asked), the
 * FP8 GEMMs' rule for m and k (lt/lt_shape.h); the padded units stay
 * zero, so the network computes the same function. Other precisions: c
 * unchanged. */
void trainer_config_fit_precision(trainer_config *c, gpu_precision precision);

struct mlp_options; /* layers/mlp.h */

/* The network a run builds (mlp_create's options), the one place they are
 * made from a run's settings (the trainer, --epochs 0, mnist_predict): the
 * matmul type of gpu->precision, c's activation, padding and loss scale
 * with the precision's rule applied (trainer_config_fit_precision: FP8
 * pads to 16), and FP8's recipe. c itself is left as it is. */
void trainer_config_network(struct mlp_options *out, const trainer_config *c,
                            const gpu_options *gpu);

/* Sets the widths to 784-hidden[0]-...-10. Returns 0, or -1 with `err`
 * when there are more than MLP_MAX_LAYERS - 1 hidden layers or a width is
 * out of range. */
int trainer_config_set_hidden(trainer_config *c, const int *hidden, int count,
                              char *err, size_t err_size);

/* The run's normalisation, x = pixel * *scale + *shift: a recorded one
 * (*scale > 0 on entry: a checkpoint's own, as trainer_config.pixel_scale
 * holds it) is kept; else both are the training split's
 * (mnist_pixel_transform of `data`, which is then read). */
void trainer_config_pixel_transform(float *scale, float *shift,
                                    const mnist_dataset *data);

/* "784-100-10": the widths of `c`, dash-separated. */
void trainer_config_name(char *out, size_t size, const trainer_config *c);

/* 0 when `c` can train (batch >= 1, epochs >= 1, widths 784-...-10 with 1
 * to MLP_MAX_LAYERS layers); else -1 with err saying what was expected. */
int trainer_config_check(const trainer_config *c, char *err, size_t err_size);

/* The learning rate after `done` of `total` steps: c->lr, or under the
 * cosine schedule lr * (1 + cos(pi done / total)) / 2. */
float trainer_config_lr(const trainer_config *c, double done, double total);

/* The run's part of the tuning cache's key (step_tune_options.run_key):
 * network, batch, precision, mode, activation, padding, the network's
 * loss scale and the FP8 recipe. */
void trainer_config_key(char *out, size_t size, const trainer_config *c,
                        gpu_precision precision, float loss_scale);

#endif
