/* bench_rounds.h: one making's timed rounds of a few trainers, interleaved
 * (bench_group_order): the one loop mnist_bench's twin groups
 * (bench_train.c) and --against-off's pairs (bench_off.c) time with. */
#ifndef MNIST_EPILOGS_BENCH_ROUNDS_H
#define MNIST_EPILOGS_BENCH_ROUNDS_H

#include "train/trainer.h"

/* Making `pass` of the trainers t[0 .. size) (NULL: that row does not run):
 * round 0 warms up (each graph's first replay, the clocks), rounds 1 ..
 * repeats are timed, each trainer one epoch a round in the order
 * bench_group_order gives round pass * repeats + round (numbered on across
 * the makings). times[v][pass * repeats + round - 1] = trainer v's epoch
 * ms; last[v] = its last epoch's stats. Returns 0; > 0 when trainer
 * *failed diverged (last[*failed] holds that epoch); < 0 when one
 * failed. */
int bench_time_rounds(trainer *const *t, int size, int pass, int repeats,
                      float *const *times, epoch_stats *last, int *failed);

#endif
