/* bench_off.c: a row against the same row under --autotune off, in one
 * process (bench_off.h). */
#include "bench/bench_off.h"

#include <stdio.h>
#include <stdlib.h>

#include "bench/bench_kernel_names.h"
#include "bench/bench_rounds.h"
#include "gpu/sample_stats.h"
#include "train/step_tune.h"
#include "train/trainer.h"

enum { ROW = 0, OFF = 1, PAIR = 2 };

/* Each side's choices: the entry a making takes (NULL: it chooses), kept
 * from the first making where it had none, so both makings run one set. */
typedef struct pair_choices {
  const tune_cache_entry *given[PAIR];
  tune_cache_entry kept[PAIR];
} pair_choices;

/* *same = 1 when t[ROW]'s and t[OFF]'s steps launch the same
 * (bench_graph_launches), else 0. Returns 0, or -1 when a step could not
 * be captured or read (message on stderr). */
static int same_launches(int *same, trainer *const *t) {
  unsigned long long hash[PAIR];
  int kernels[PAIR];
  for (int v = 0; v < PAIR; v++) {
    cudaGraph_t graph = NULL;
    if (trainer_capture_step(t[v], &graph) != 0) return -1;
    kernels[v] = bench_graph_launches(&hash[v], graph);
    cudaGraphDestroy(graph);
    if (kernels[v] < 0) return -1;
  }
  *same = kernels[ROW] == kernels[OFF] && hash[ROW] == hash[OFF];
  return 0;
}

/* One making of the pair, in the order `pass` gives, and its rounds
 * (bench_time_rounds): times[v][pass * repeats + round - 1].
 * The first making keeps each side's chosen set for the second (in
 * *choices) and says whether the two steps launch the same; each making
 * records off's fingerprint. */
static int time_pass(bench_off_result *out,
                     float (*times)[2 * BENCH_MAX_REPEATS],
                     pair_choices *choices, const bench_run *run,
                     trainer_config *c, const char *name, gpu_precision p,
                     int pass) {
  gpu_context *ctx[PAIR] = {run->contexts[p], run->off_contexts[p]};
  trainer *t[PAIR] = {NULL, NULL};
  int status = 0;
  for (int i = 0; i < PAIR && status == 0; i++) {
    int v = bench_creation_order(PAIR, pass, i);
    c->tune_given = choices->given[v];
    status = trainer_create(&t[v], ctx[v], run->data, c);
  }
  c->tune_given = NULL;
  for (int v = 0; v < PAIR && status == 0; v++) {
    const step_tune_report *r = trainer_tune_report(t[v]);
    int has = r && r->has_entry;
    if (v == OFF) out->off_fingerprint[pass] = has ? r->fingerprint : 0;
    if (pass == 0 && has && !choices->given[v]) {
      choices->kept[v] = r->entry;
      choices->given[v] = &choices->kept[v];
    }
  }
  if (pass == 0 && status == 0) status = same_launches(&out->same_launches, t);
  float *side_times[PAIR] = {times[ROW], times[OFF]};
  epoch_stats last[PAIR];
  int failed = 0;
  if (status == 0)
    status = bench_time_rounds(t, PAIR, pass, run->repeats, side_times, last,
                               &failed);
  if (status > 0)
    fprintf(stderr,
            "mnist_bench: %s %s %s%s diverged (loss %g; --against-off's "
            "pair, making %d)\n",
            name, mlp_mode_name(c->mode), gpu_precision_name(p),
            failed == OFF ? " under --autotune off" : "",
            last[failed].train_loss, pass + 1);
  for (int v = 0; v < PAIR; v++)
    trainer_destroy(t[v]);
  return status;
}

int bench_off_time(bench_off_result *out, const bench_run *run,
                   trainer_config *c, const char *name, gpu_precision p,
                   const tune_cache_entry *given) {
  float times[PAIR][2 * BENCH_MAX_REPEATS], ratios[2 * BENCH_MAX_REPEATS];
  pair_choices *choices =
      calloc(1, sizeof *choices); /* two cache entries: tens of KB */
  *out = (bench_off_result){0};
  if (!choices) {
    fprintf(stderr, "mnist_bench: out of host memory\n");
    return -1;
  }
  choices->given[ROW] = given;
  int status = 0;
  for (int pass = 0; pass < PAIR && status == 0; pass++)
    status = time_pass(out, times, choices, run, c, name, p, pass);
  free(choices);
  if (status != 0) return -1;
  int n = PAIR * run->repeats;
  for (int k = 0; k < n; k++)
    ratios[k] = times[ROW][k] / times[OFF][k];
  sample_stats(ratios, n, &out->ratio, &out->ratio_lo, &out->ratio_hi);
  sample_stats(times[OFF], n, &out->off_ms, NULL, NULL);
  out->measured = 1;
  return 0;
}
