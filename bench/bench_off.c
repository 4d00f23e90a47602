/* bench_off.c: a row against the same row under --autotune off, in one
 * process (bench_off.h). */
#include "bench/bench_off.h"

#include <stdio.h>
#include <stdlib.h>

#include "bench/bench_kernel_names.h"
#include "gpu/sample_stats.h"
#include "train/step_tune.h"
#include "train/trainer.h"

enum { ROW = 0, OFF = 1, PAIR = 2 };

/* 1 when t[ROW]'s and t[OFF]'s steps launch the same, 0 when not, -1 when
 * a step could not be captured or read. */
static int same_launches(trainer *const *t) {
  unsigned long long hash[PAIR];
  int kernels[PAIR];
  for (int v = 0; v < PAIR; v++) {
    cudaGraph_t graph = NULL;
    if (trainer_capture_step(t[v], &graph) != 0) return -1;
    kernels[v] = bench_graph_launches(graph, &hash[v]);
    cudaGraphDestroy(graph);
    if (kernels[v] < 0) return -1;
  }
  return kernels[ROW] == kernels[OFF] && hash[ROW] == hash[OFF];
}

/* One making of the pair, in the order `pass` gives, and its rounds:
 * times[v][pass * repeats + round - 1] = trainer v's epoch of that round.
 * After pass 0, *off_entry is off's chosen set (NULL: none), which pass 1
 * takes rather than choosing again, and out has off's fingerprint and
 * whether the two steps launch the same. */
static int time_pass(const bench_run *run, trainer_config *c, gpu_precision p,
                     const tune_cache_entry *given, int pass,
                     tune_cache_entry **off_entry, bench_off_result *out,
                     float (*times)[2 * BENCH_MAX_REPEATS]) {
  gpu_context *ctx[PAIR] = {run->contexts[p], run->off_contexts[p]};
  trainer *t[PAIR] = {NULL, NULL};
  int status = 0;
  for (int i = 0; i < PAIR && status == 0; i++) {
    int v = bench_creation_order(PAIR, pass, i);
    c->tune_given = v == ROW ? given : *off_entry;
    status = trainer_create(&t[v], ctx[v], run->data, c);
  }
  c->tune_given = NULL;
  const step_tune_report *off =
      status == 0 ? trainer_tune_report(t[OFF]) : NULL;
  if (pass == 0 && status == 0) out->same_launches = same_launches(t);
  if (pass == 0 && off && off->has_entry) {
    out->off_fingerprint = off->fingerprint;
    *off_entry = malloc(sizeof **off_entry);
    if (*off_entry) **off_entry = off->entry;
  }
  epoch_stats s;
  for (int round = 0; round <= run->repeats && status == 0; round++) {
    int order = round == 0 ? 0 : pass * run->repeats + round;
    for (int i = 0; i < PAIR && status == 0; i++) {
      int v = bench_group_order(PAIR, order, i);
      status = trainer_run_epoch(t[v], round, &s);
      if (status > 0)
        fprintf(stderr, "mnist_bench: %s %s%s diverged (loss %g)\n",
                mlp_mode_name(c->mode), gpu_precision_name(p),
                v == OFF ? " under --autotune off" : "", s.train_loss);
      if (round > 0) times[v][pass * run->repeats + round - 1] = s.train_ms;
    }
  }
  for (int v = 0; v < PAIR; v++)
    trainer_destroy(t[v]);
  return status;
}

int bench_off_time(const bench_run *run, trainer_config *c, gpu_precision p,
                   const tune_cache_entry *given, bench_off_result *out) {
  float times[PAIR][2 * BENCH_MAX_REPEATS], ratios[2 * BENCH_MAX_REPEATS];
  tune_cache_entry *off_entry = NULL;
  *out = (bench_off_result){0};
  int status = 0;
  for (int pass = 0; pass < PAIR && status == 0; pass++)
    status = time_pass(run, c, p, given, pass, &off_entry, out, times);
  free(off_entry);
  if (status != 0) return -1;
  int n = PAIR * run->repeats;
  for (int k = 0; k < n; k++)
    ratios[k] = times[ROW][k] / times[OFF][k];
  sample_stats(ratios, n, &out->ratio, &out->ratio_lo, &out->ratio_hi);
  sample_stats(times[ROW], n, &out->row_ms, NULL, NULL);
  sample_stats(times[OFF], n, &out->off_ms, NULL, NULL);
  out->measured = 1;
  return 0;
}
