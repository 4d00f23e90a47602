/* trainer_state.h: what a trainer holds (train/trainer.h), shared by the
 * files that make it up (trainer.c: its life and epochs; trainer_query.c:
 * its single steps and queries). Internal to train/. */
#ifndef MNIST_EPILOGS_TRAINER_STATE_H
#define MNIST_EPILOGS_TRAINER_STATE_H

#include "train/epoch_data.h"
#include "train/step_tune.h"
#include "train/trainer.h"

enum {
  STAT_TRAIN_LOSS,
  STAT_TRAIN_CORRECT,
  STAT_TEST_LOSS,
  STAT_TEST_CORRECT,
  STAT_COUNT
};

struct trainer {
  gpu_context *ctx; /* borrowed */
  trainer_config config;
  mlp *net;
  epoch_data *data;
  float *h_lr, *d_lr; /* pinned / device: one lr per step of an epoch */
  double *d_stats;    /* [STAT_COUNT] */
  cudaEvent_t start, stop, test_stop;
  cudaGraphExec_t train_graph, test_graph;
  step_tune_report *tune;             /* what the step tuner chose, and why */
  const mnist_dataset *source;        /* borrowed during trainer_create only */
  int apart_copy;                     /* 1: this trainer is the step tuner's
                                         copy in a context apart, which stops
                                         after tuning (tune_apart) */
  const step_tune_check *apart_check; /* such a copy's sets to check
                                         (step_tune_options.check), or
                                         NULL: it searches */
  double cycle_ms; /* trainer_config.context_cycle's context: ms it took,
                      0: none made */
  int steps_done;  /* optimiser steps so far (config.max_steps) */
  int epoch_steps; /* steps the epoch being enqueued runs */
};

/* Training steps per epoch: full batches and the last partial one. */
int trainer_train_steps(const trainer *t);

/* Enqueues training step s of the epoch (no sync). Returns 0 or -1. */
int trainer_enqueue_step(trainer *t, int s);

#endif
