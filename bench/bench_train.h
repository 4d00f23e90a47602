/* bench_train.h: the training part of mnist_bench: every row of a network
 * (bench_rows.h) trained side by side, a twin group at a time: its
 * trainers made once per creation order (bench_creation_order), each time
 * one epoch of each per round after one warm-up round, a group's rows in
 * the order bench_group_order gives the round; epochs timed with CUDA
 * events, reported as median (min-max) over every order's epochs against
 * the launch floor and the matmul rate, and each unfused and auto row
 * against its fused twin. */
#ifndef MNIST_EPILOGS_BENCH_TRAIN_H
#define MNIST_EPILOGS_BENCH_TRAIN_H

#include "bench/bench_json.h"
#include "bench/bench_rows.h"
#include "data/mnist.h"
#include "gpu/gpu_context.h"
#include "train/train_config.h"

/* What one benchmark run shares with its parts. */
typedef struct bench_run {
  const mnist_dataset *data;
  gpu_context *const *contexts; /* [GPU_PRECISION_COUNT], one a precision */
  /* --against-off: [GPU_PRECISION_COUNT] contexts of the same precisions
   * with autotune off, where each row's twin under --autotune off is made
   * (bench_off.h), NULL for a precision whose rows do not run; the array
   * NULL: no such timing */
  gpu_context *const *off_contexts;
  const double *peaks; /* [GPU_PRECISION_COUNT] matmul TFLOP/s; 0: not
                          measured (not selected) */
  float launch_us;     /* one dependent launch in a graph */
  int repeats;         /* timed epochs per row and creation order,
                          1..BENCH_MAX_REPEATS */
  bench_selection selection;
  int pad_multiple; /* the "+pad" rows' padding multiple (0: 8) */
  unsigned chain;   /* --chain (gpu_options.chain) */
  fp8_recipe fp8;   /* the fp8 rows' recipe (--fp8-*) */
  bench_json *json; /* NULL: no JSON */
  /* The step tuner of every row's trainer (trainer_config.tune_*): each
   * row chooses its own (train/step_tune.h). */
  float tune_budget_ms;
  tune_cache_mode tune_cache;
  const char *tune_cache_dir;
  int show_plans;    /* after a network's rows, each row's tuner report */
  int context_cycle; /* trainer_config.context_cycle of every row */
} bench_run;

/* c's step-tuner settings from the run's. */
void bench_run_tuning(trainer_config *c, const bench_run *run);

/* The table's legend and header, printed once before the rows. */
void bench_train_header(const bench_run *run);

/* Trains the rows of network `net` (of rows[0..count)) that run, prints a
 * line per row and adds a "training" entry per row to run->json; with
 * run->off_contexts, each row also against its twin under --autotune off
 * after its group (bench_off_time), the ratio on its line and in its
 * entry; with
 * run->show_plans, then each row's step tuner report of its first creation
 * order (step_tune_print), under the row's network, mode, precision and
 * activation, and a line with the fingerprint each order ran. Returns 0,
 * or -1 (a row failed or diverged; message on stderr). */
int bench_train_network(const bench_run *run, int net, const bench_row *rows,
                        int count);

#endif
