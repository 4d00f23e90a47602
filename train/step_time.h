/* step_time.h: the step tuner's clock (train/step_tune.h): a configuration
 * of the slots written into the layers, the epoch's first STEP_TIME_STEPS
 * training steps (their own batches) captured back to back as one CUDA
 * graph with it, as the epoch's graph holds them, re-captured
 * and re-instantiated for every new configuration (a challenger may add or
 * drop kernels, so a graph update would not do), and pairs of
 * configurations timed as interleaved graph replays between CUDA events,
 * all enqueued before one wait. Internal to the step tuner. */
#ifndef MNIST_EPILOGS_STEP_TIME_H
#define MNIST_EPILOGS_STEP_TIME_H

#include "train/step_tune.h"

/* Replays of the step per sample are chosen so that a sample lasts about
 * this long (at least one replay, at most STEP_TIME_MAX_REPLAYS). */
#define STEP_TIME_SAMPLE_MS 0.2
enum { STEP_TIME_STEPS = 4, STEP_TIME_MAX_REPLAYS = 32 };

typedef struct step_clock step_clock;

/* A clock for `target`'s step with `slots` over `calls` (borrowed; they
 * must outlive it), after waiting for a context apart that target->ctx is
 * destroying (gpu_context_retire: none may die beside timed steps).
 * Returns 0, or -1 with a message on stderr. */
int step_clock_create(step_clock **out, const step_tune_target *target,
                      const mlp_call *calls, const tune_slot *slots,
                      int slot_count);
/* Destroys its graphs and events; a no-op on NULL. */
void step_clock_destroy(step_clock *clock);

/* Runs work(arg) with `target`'s network state taken before and put back
 * after (layers/mlp_snapshot.h: timed steps train the network; a
 * candidate's run writes an FP8 D's amax into the scaling state), the
 * stream synchronized. A failed take is not put back over the network.
 * Returns work's status, or -1. */
int step_time_kept(const step_tune_target *target, int (*work)(void *arg),
                   void *arg);

/* tune_ops.measure (tune_search.h) for a step_clock `self`. The first call
 * also picks the replays per sample from the step's time. */
int step_clock_measure(void *self, const tune_config *a, const tune_config *b,
                       int pairs, float *base, float *cand, double *spent_ms);

#endif
