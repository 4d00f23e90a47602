/* fake_step.h: a fake training step for the step tuner's CPU suites
 * (test_tune_search.c, test_tune_against_off.c): each slot's value adds a
 * known cost to the step, samples get seeded Gaussian noise, and
 * fake_measure stands in for the step's clock (tune_ops.measure). */
#ifndef MNIST_EPILOGS_TESTS_FAKE_STEP_H
#define MNIST_EPILOGS_TESTS_FAKE_STEP_H

#include "train/tune_search.h"

/* The fake step: ms per step = base + sum of cost[slot][value] (+ noise).
 */
typedef struct fake_step {
  int slots;
  double base_ms;
  double cost[TUNE_MAX_SLOTS][4];
  double noise_ms; /* standard deviation of each sample */
  /* pair_ms more when slots pair[0] and pair[1] both hold pair_value: a
   * step whose costs do not add up slot by slot */
  int pair[2], pair_value;
  double pair_ms;
  int refuse_value;    /* a value of slot 0 that cannot run (-1: none) */
  unsigned long state; /* the noise's generator */
  int measures;        /* calls of measure */
  int pairs_measured;
} fake_step;

/* A step of `slots` slots costing base_ms, every value free, samples with
 * noise_ms of Gaussian noise from generator state `state`, nothing
 * refused. */
fake_step fake_step_make(int slots, double base_ms, double noise_ms,
                         unsigned long state);

/* tune_ops.measure over a fake_step: `pairs` samples of a and b, A B. */
int fake_measure(void *self, const tune_config *a, const tune_config *b,
                 int pairs, float *base, float *cand, double *spent);

/* Slots with `values` candidates each, all accepted, equal alone. */
void fake_slots(tune_slot *slots, int count, int values);

/* `count` way slots of auto: values 1 (fused) and 2 (unfused); 0 is no
 * way. */
void fake_way_slots(tune_slot *slots, int count);

/* The log's last record: a whole-step comparison from -> to, won or not. */
void fake_assert_last_step(const tune_log *log, int from, int to, int wins);

#endif
