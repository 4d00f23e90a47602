/* bench_train.c: every row of a network trained side by side, timed and
 * reported (bench_train.h). */
#include "bench/bench_train.h"

#include <stdio.h>
#include <stdlib.h>

#include "bench/bench_off.h"
#include "bench/bench_rounds.h"
#include "bench/graph_count.h"
#include "gpu/sample_stats.h"
#include "train/step_tune.h"
#include "train/trainer.h"

typedef struct row_result {
  /* ms per timed epoch: --repeats of them per creation order */
  float times[BENCH_MAX_REPEATS * BENCH_MAX_GROUP];
  int orders; /* creation orders timed: the group's size */
  unsigned fingerprint[BENCH_MAX_GROUP]; /* each order's chosen set */
  int tuned;            /* 1: the first order's step was tuned and its set
                           named (fingerprint[0] is the set's) */
  int algorithms_moved; /* its algorithm slots not at cuBLASLt's first
                           candidate (0 where nothing was tuned) */
  float median, lo, hi;
  int kernels, critical;
  double accuracy;
  bench_off_result off; /* against --autotune off (--against-off) */
} row_result;

/* Matmul FLOPs of one epoch: forward 2 n in out per layer, weight
 * gradient the same, data gradient for every layer but the first. */
static double epoch_flops(const trainer_config *c, int count) {
  double per_sample = 0;
  for (int l = 0; l < c->depth; l++) {
    double layer = 2.0 * c->widths[l] * c->widths[l + 1];
    per_sample += layer * (l == 0 ? 2 : 3);
  }
  return per_sample * count;
}

/* Whether this run wants `row` on its own: --precision and --activation,
 * less the precisions app/mnist_bench.c found the GPU cannot run
 * (bench_selection.refused). The one place a row is decided to run
 * (bench_train_network pairs it with its twin's). */
static int row_wanted(const bench_run *run, const bench_row *row) {
  return bench_row_selected(row, &run->selection);
}

void bench_run_tuning(trainer_config *c, const bench_run *run) {
  c->tune_budget_ms = run->tune_budget_ms;
  c->tune_cache = run->tune_cache;
  c->tune_cache_dir = run->tune_cache_dir;
  c->context_cycle = run->context_cycle;
}

void bench_train_header(const bench_run *run) {
  char chain[128];
  gpu_chain_format(chain, sizeof chain, run->chain);
  printf("%d timed epochs per row after one warm-up epoch, rows interleaved "
         "(one epoch of each a round, a twin group's rows in another order "
         "each round), in each of the group's creation orders (its trainers "
         "made once per row, each row made first once: %d epochs a median "
         "in a group of three, %d in a pair); median (min-max); autotune %s; "
         "chain %s; +pad: "
         "widths padded to a multiple of %d; context cycle %s.\n"
         "auto: per call the fastest of fused, unfused and (data gradients) "
         "split in the step; every row's algorithms and ways chosen by its "
         "own step tuner (--show-plans lists the choices).\n\n",
         run->repeats, 3 * run->repeats, 2 * run->repeats,
         gpu_autotune_name(run->contexts[0]->options.autotune), chain,
         run->pad_multiple > 0 ? run->pad_multiple : 8,
         run->context_cycle ? "on" : "off");
  if (run->off_contexts)
    printf("against off: after its group, each row made again beside the "
           "same row under --autotune off, the pair made in both orders, "
           "their epochs alternating: the row's epoch over off's beside it, "
           "median (min-max) of %d rounds%s.\n\n",
           2 * run->repeats,
           run->contexts[0]->options.autotune == GPU_AUTOTUNE_OFF
               ? " (the rows under --autotune off too: off against another "
                 "making of itself, the comparison's own floor; an auto "
                 "twin searches its ways again, as every making of off does)"
               : "");
  printf("kernels: per step / on its longest chain; floor: that chain x one "
         "launch x steps (ms per epoch); of peak: of the measured matmul "
         "rate of that precision\n\n");
  printf("%-18s %6s  %-8s %-5s %-4s %9s %11s %9s %8s %7s %8s %7s %9s\n",
         "network", "batch", "mode", "prec", "graph", "ms/epoch", "(min-max)",
         "us/step", "kernels", "floor", "TFLOP/s", "of peak", "test acc");
}

/* Prints the row's line and adds its JSON entry; `twin` is its fused
 * twin's result. */
static int report_row(const bench_run *run, const bench_row *row,
                      const row_result *r, const row_result *twin,
                      const char *name, int batch, int steps, double flops) {
  /* This row's median over the fused twin's: how much slower than fused
   * it is; 1 for fused rows. */
  double speedup = r->median / twin->median;
  double tflops = flops / (r->median * 1e-3) / 1e12;
  double peak = run->peaks[row->precision];
  /* The floor: the longest chain of dependent kernels, each costing at
   * least one empty-kernel launch. */
  double floor_ms = steps * r->critical * run->launch_us / 1000.0;
  char label[32];
  bench_row_label(label, sizeof label, row);
  const char *precision = gpu_precision_name(row->precision);
  char chain[128];
  gpu_chain_format(chain, sizeof chain,
                   run->contexts[row->precision]->options.chain);
  printf("%-18s %6d  %-8s %-5s %-4s %9.2f (%.2f-%.2f) %9.1f %4d/%-3d %7.2f "
         "%8.1f %6.1f%% %8.2f%%",
         name, batch, label, precision, row->graphs ? "on" : "off", r->median,
         r->lo, r->hi, 1000.0 * r->median / steps, r->kernels, r->critical,
         floor_ms, tflops, 100.0 * tflops / peak, 100.0 * r->accuracy);
  if (row->mode != MLP_MODE_FUSED) printf("  %.2fx fused's speed", 1 / speedup);
  if (r->off.measured)
    printf("  %.3fx off's time (%.3f-%.3f; off %.2f ms, %s)", r->off.ratio,
           r->off.ratio_lo, r->off.ratio_hi, r->off.off_ms,
           r->off.same_launches ? "same launches" : "other launches");
  printf("\n");
  if (!run->json) return 0;
  char set[16];
  snprintf(set, sizeof set, "%08x", r->fingerprint[0]);
  bench_training_record record = {.network = name,
                                  .batch = batch,
                                  .mode = mlp_mode_name(row->mode),
                                  .precision = precision,
                                  .graphs = row->graphs,
                                  .ms_per_epoch = r->median,
                                  .ms_min = r->lo,
                                  .ms_max = r->hi,
                                  .us_per_step = 1000.0 * r->median / steps,
                                  .kernels_per_step = r->kernels,
                                  .critical_path_kernels = r->critical,
                                  .launch_floor_ms = floor_ms,
                                  .tflops = tflops,
                                  .fraction_of_peak = tflops / peak,
                                  .speedup_vs_fused = speedup,
                                  .test_accuracy = r->accuracy,
                                  .repeats = run->repeats,
                                  .creation_orders = r->orders,
                                  .pad_units = row->pad_units,
                                  .activation =
                                      lt_activation_name(row->activation),
                                  .chain = chain,
                                  .tuned_set = r->tuned ? set : NULL,
                                  .algorithms_moved = r->algorithms_moved,
                                  .against_off = r->off.measured,
                                  .vs_off = r->off.ratio,
                                  .vs_off_min = r->off.ratio_lo,
                                  .vs_off_max = r->off.ratio_hi,
                                  .off_ms_per_epoch = r->off.off_ms,
                                  .same_launches_as_off = r->off.same_launches};
  return bench_json_add_training(run->json, &record);
}

/* A copy of t's step tuner report into *out (NULL: t has none), which
 * outlives t. Returns 0 or -1. */
static int keep_report(const trainer *t, step_tune_report **out) {
  const step_tune_report *r = trainer_tune_report(t);
  if (!r) return 0;
  *out = malloc(sizeof **out);
  if (!*out) {
    fprintf(stderr, "mnist_bench: out of host memory\n");
    return -1;
  }
  **out = *r;
  return 0;
}

/* c set for `row`: its mode, graphs, padding and activation. */
static void row_config(trainer_config *c, const bench_run *run,
                       const bench_row *row) {
  c->mode = row->mode;
  c->graphs = row->graphs;
  c->pad_units = row->pad_units;
  c->pad_multiple = row->pad_units ? run->pad_multiple : 0;
  c->activation = row->activation;
}

/* Makes the rows of the twin group at g that run (runs[v]), in the order
 * bench_creation_order gives `pass`, into t[v] (the previous pass's
 * destroyed first). Pass 0 tunes (or reads the cache) as asked, counts
 * each row's kernels and keeps its tuner report in report[v]; the later
 * passes take those choices (trainer_config.tune_given), so every order
 * times the same steps, with the cache or without. */
static int make_group(const bench_run *run, trainer_config *c,
                      const bench_row *rows, int g, int size, int pass,
                      const int *runs, trainer **t, row_result *r,
                      step_tune_report **report) {
  for (int i = 0; i < size; i++) {
    trainer_destroy(t[g + i]);
    t[g + i] = NULL;
  }
  int status = 0;
  for (int i = 0; i < size && status == 0; i++) {
    int v = g + bench_creation_order(size, pass, i);
    if (!runs[v]) continue;
    row_config(c, run, &rows[v]);
    c->tune_given = pass > 0 && report[v] && report[v]->has_entry
                        ? &report[v]->entry
                        : NULL;
    status =
        trainer_create(&t[v], run->contexts[rows[v].precision], run->data, c);
    if (status == 0 && pass == 0)
      status = graph_count_step(t[v], &r[v].kernels, &r[v].critical);
    if (status == 0 && pass == 0) status = keep_report(t[v], &report[v]);
    const step_tune_report *tuned =
        status == 0 ? trainer_tune_report(t[v]) : NULL;
    r[v].fingerprint[pass] = tuned ? tuned->fingerprint : 0;
    if (pass == 0 && tuned) {
      r[v].tuned = tuned->tuned && tuned->has_entry;
      r[v].algorithms_moved = tune_algorithms_moved(
          &tuned->chosen, tuned->slots, tuned->slot_count);
    }
  }
  c->tune_given = NULL;
  return status;
}

/* One pass of the twin group at g (bench_time_rounds): the times go to
 * r[v].times[pass * R ..], the last epoch's accuracy to r[v].accuracy. */
static int time_group(const bench_run *run, const bench_row *rows, int g,
                      int size, int pass, const int *runs, trainer **t,
                      row_result *r) {
  trainer *group[BENCH_MAX_GROUP] = {NULL};
  float *times[BENCH_MAX_GROUP];
  epoch_stats last[BENCH_MAX_GROUP];
  for (int i = 0; i < size; i++) {
    group[i] = runs[g + i] ? t[g + i] : NULL;
    times[i] = r[g + i].times;
  }
  int failed = 0;
  int status =
      bench_time_rounds(group, size, pass, run->repeats, times, last, &failed);
  if (status > 0)
    fprintf(stderr, "mnist_bench: %s %s diverged (loss %g)\n",
            mlp_mode_name(rows[g + failed].mode),
            gpu_precision_name(rows[g + failed].precision),
            last[failed].train_loss);
  for (int i = 0; i < size && status == 0; i++)
    if (group[i]) r[g + i].accuracy = last[i].test_accuracy;
  return status;
}

/* Under a row's tuner report: the set each creation order ran, and the
 * set its --autotune off twin chose (under auto, its ways). */
static void print_orders(const row_result *r) {
  if (r->off.measured && r->off.off_fingerprint[0])
    printf("against off: its --autotune off twin's set %08x, %08x: %s\n",
           r->off.off_fingerprint[0], r->off.off_fingerprint[1],
           r->off.off_fingerprint[0] == r->off.off_fingerprint[1]
               ? "the same in both makings"
               : "NOT the same in both makings");
  int same = 1;
  printf("creation orders (%d): fingerprints", r->orders);
  for (int p = 0; p < r->orders; p++) {
    printf("%s %08x", p ? "," : "", r->fingerprint[p]);
    same = same && r->fingerprint[p] == r->fingerprint[0];
  }
  printf(": %s\n", same ? "the same set in every order"
                        : "NOT the same set in every order");
}

int bench_train_network(const bench_run *run, int net, const bench_row *rows,
                        int count) {
  int net_count;
  const bench_net *n = &bench_nets(&net_count)[net];
  trainer_config c;
  char err[128];
  if (bench_net_config(&c, n, err, sizeof err) != 0) {
    fprintf(stderr, "mnist_bench: %s\n", err);
    return -1;
  }
  c.epochs = run->repeats + 1;
  bench_run_tuning(&c, run);
  c.fp8 = run->fp8;
  int runs[BENCH_MAX_ROWS] = {0}, first = -1, steps = 1;
  for (int v = 0; v < count; v++) {
    runs[v] = rows[v].net == net && row_wanted(run, &rows[v]) &&
              row_wanted(run, &rows[rows[v].twin]);
    if (runs[v] && first < 0) first = v;
  }
  char name[64];
  trainer_config_name(name, sizeof name, &c);
  trainer *t[BENCH_MAX_ROWS] = {0};
  step_tune_report *report[BENCH_MAX_ROWS] = {0};
  row_result *r = calloc(BENCH_MAX_ROWS, sizeof *r); /* ~160 KB */
  int status = r ? 0 : -1;
  if (!r) fprintf(stderr, "mnist_bench: out of host memory\n");
  /* A twin group at a time, made once per creation order; its trainers
   * destroyed before the next group's are made. */
  for (int g = 0, size; g < count && status == 0; g += size) {
    size = bench_group_size(rows, count, g);
    if (!runs[g]) continue;
    if (size > BENCH_MAX_GROUP) {
      fprintf(stderr,
              "mnist_bench: the twin group at row %d: expected at most %d "
              "rows (BENCH_MAX_GROUP), found %d\n",
              g, BENCH_MAX_GROUP, size);
      status = -1;
    }
    for (int pass = 0; pass < size && status == 0; pass++) {
      status = make_group(run, &c, rows, g, size, pass, runs, t, r, report);
      if (status == 0)
        status = time_group(run, rows, g, size, pass, runs, t, r);
    }
    if (status == 0 && g == first) steps = trainer_steps_per_epoch(t[first]);
    for (int i = 0; i < size; i++) {
      trainer_destroy(t[g + i]);
      t[g + i] = NULL;
      r[g + i].orders = size;
    }
    for (int v = g; v < g + size && status == 0 && run->off_contexts; v++) {
      if (!runs[v]) continue;
      row_config(&c, run, &rows[v]);
      status = bench_off_time(
          &r[v].off, run, &c, name, rows[v].precision,
          report[v] && report[v]->has_entry ? &report[v]->entry : NULL);
    }
  }
  double flops = epoch_flops(&c, run->data->train.count);
  for (int v = 0; v < count && status == 0; v++)
    if (runs[v])
      sample_stats(r[v].times, r[v].orders * run->repeats, &r[v].median,
                   &r[v].lo, &r[v].hi);
  for (int v = 0; v < count && status == 0; v++)
    if (runs[v])
      status = report_row(run, &rows[v], &r[v], &r[rows[v].twin], name,
                          n->batch, steps, flops);
  for (int v = 0; v < count && status == 0 && run->show_plans; v++)
    if (runs[v]) {
      char label[48];
      bench_row_label(label, sizeof label, &rows[v]);
      printf("\n%s %s %s%s:\n", name, label,
             gpu_precision_name(rows[v].precision),
             rows[v].graphs ? "" : " graphs off");
      if (report[v]) step_tune_print(stdout, report[v]);
      print_orders(&r[v]);
    }
  for (int v = 0; v < count; v++) {
    trainer_destroy(t[v]);
    free(report[v]);
  }
  free(r);
  return status == 0 ? 0 : -1;
}
