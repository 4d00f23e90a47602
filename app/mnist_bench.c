/* mnist_bench.c: the benchmark's main. Checks the flags and the --json
 * path before the data and the GPU; measures the ceilings (matmul rate per
 * precision, one dependent launch); trains every row of every network
 * (bench_train.h: fused, unfused and auto side by side, timed epochs,
 * medians, each against its fused twin); times every cuBLASLt call of one
 * step against its unfused twin (bench_layers.h); writes the JSON whole
 * at the end. --alternatives instead times the alternative epilogues
 * (bench_alternatives.h) without reading the data. Like the other mains
 * in app/, the one place it exits. */
#include <stdio.h>
#include <stdlib.h>

#include "app/bench_options.h"
#include "app/cli_flags.h"
#include "bench/bench_alternatives.h"
#include "bench/bench_json.h"
#include "bench/bench_layers.h"
#include "bench/bench_output.h"
#include "bench/bench_profile.h"
#include "bench/bench_timing.h"
#include "bench/bench_trace.h"
#include "bench/bench_train.h"
#include "lt/lt_precision.h"
#include "train/data_source.h"

#ifndef MNIST_SOURCE_DIR
#define MNIST_SOURCE_DIR "."
#endif

/* The ceilings: peaks[p] the best of 4096^3 and 8192^3 in each selected
 * precision (0 for the others), launch_us one dependent launch. */
static int measure_ceilings(gpu_context *const *contexts,
                            const bench_selection *selection, double *peaks,
                            float *launch_us) {
  for (int p = 0; p < GPU_PRECISION_COUNT; p++) {
    double rate4 = 0, rate8 = 0;
    if (!bench_precision_selected(selection, p)) continue;
    if (bench_matmul_rate(contexts[p], 4096, &rate4) != 0 ||
        bench_matmul_rate(contexts[p], 8192, &rate8) != 0)
      return -1;
    peaks[p] = rate8 > rate4 ? rate8 : rate4;
  }
  if (bench_launch_cost(contexts[0], launch_us) != 0) return -1;
  printf("mnist_bench: %s (%d SMs); matmul rate (best of 4096^3 and 8192^3 "
         "through the wrapper, TFLOP/s):",
         contexts[0]->device_name, contexts[0]->sm_count);
  for (int p = 0; p < GPU_PRECISION_COUNT; p++)
    if (peaks[p] > 0) printf(" %s %.1f", gpu_precision_name(p), peaks[p]);
  printf("\none dependent kernel in a CUDA graph (empty kernel): %.2f us\n",
         *launch_us);
  return 0;
}

/* The JSON's head: the GPU, the ceilings and the autotune mode. */
static int start_json(bench_json **json, const bench_run *run) {
  const gpu_context *ctx = run->contexts[0];
  if (bench_json_create(json, ctx->device_name, run->launch_us,
                        gpu_autotune_name(ctx->options.autotune)) != 0)
    return -1;
  for (int p = 0; p < GPU_PRECISION_COUNT; p++)
    if (run->peaks[p] > 0 &&
        bench_json_add_peak(*json, gpu_precision_name(p), run->peaks[p]) != 0)
      return -1;
  return 0;
}

/* Creates contexts[p] for every usable precision p, under `autotune`.
 * Returns 0 or -1. */
static int open_contexts(gpu_context **contexts, const int *usable,
                         const bench_options *o, gpu_autotune autotune) {
  for (int p = 0; p < GPU_PRECISION_COUNT; p++) {
    if (!usable[p]) continue;
    gpu_options options = gpu_options_defaults();
    options.device = o->device;
    options.precision = (gpu_precision)p;
    options.autotune = autotune;
    options.chain = o->chain;
    if (gpu_context_create(&contexts[p], &options) != 0) return -1;
  }
  return 0;
}

/* The rows, the calls and the JSON, once the contexts exist. */
static int measure(const bench_options *o, bench_run *run) {
  double peaks[GPU_PRECISION_COUNT] = {0};
  run->peaks = peaks;
  if (measure_ceilings(run->contexts, &run->selection, peaks, &run->launch_us))
    return -1;
  if (o->json_path && start_json(&run->json, run) != 0) return -1;
  bench_train_header(run);
  bench_row rows[BENCH_MAX_ROWS];
  int count = bench_rows_build(rows), net_count;
  bench_nets(&net_count);
  for (int n = 0; n < net_count; n++)
    if ((o->network == 0 || n == o->network - 1) &&
        bench_train_network(run, n, rows, count) != 0)
      return -1;
  if (!o->skip_layers && bench_layers_run(run) != 0) return -1;
  return o->json_path ? bench_json_write(run->json, o->json_path) : 0;
}

/* Whether the GPU runs `p` for this bench (lt_precision_check_device's
 * code, msg in `why`): the epilogues of every activation asked, probed at
 * once (asked: the precision's rows run; else only DEFAULT, the ceilings'
 * matmul). On a refusal, DEFAULT alone decides the precision and each
 * activation is probed by itself: one refused gets refused_activation,
 * and a line saying its rows are skipped and why. -1 also when every
 * activation asked is refused in a precision other than FP32 (FP32 still
 * measures the ceilings). */
static int check_precision(char *why, size_t size, const bench_options *o,
                           bench_selection *sel, gpu_precision p) {
  int asked = o->precision < 0 || (int)p == o->precision;
  lt_epilogue_set plain = LT_EPILOGUE_BIT(LT_EPILOGUE_DEFAULT), all = plain;
  for (int a = 0; asked && a < LT_ACTIVATION_COUNT; a++)
    if (o->activation < 0 || a == o->activation)
      all |= lt_run_epilogues((lt_activation)a, 1, LT_RUN_BOTH);
  int check = lt_precision_check_device(why, size, o->device, p, all);
  if (check >= 0 || all == plain) return check;
  check = lt_precision_check_device(why, size, o->device, p, plain);
  if (check < 0) return check;
  int runs = 0;
  for (int a = 0; a < LT_ACTIVATION_COUNT; a++) {
    if (o->activation >= 0 && a != o->activation) continue;
    char refusal[512];
    if (lt_precision_check_device(
            refusal, sizeof refusal, o->device, p,
            lt_run_epilogues((lt_activation)a, 1, LT_RUN_BOTH)) >= 0) {
      runs = 1;
      continue;
    }
    sel->refused_activation[p][a] = 1;
    printf("mnist_bench: skipping the %s %s rows: %s\n", gpu_precision_name(p),
           lt_activation_name((lt_activation)a), refusal);
  }
  if (!runs && p != GPU_PRECISION_FP32) {
    snprintf(why, size, "every activation asked is refused (above)");
    return -1;
  }
  return check;
}

/* Everything after the data and the GPU are known to be there. */
static int run_bench(const bench_options *o, const mnist_dataset *data) {
  gpu_context *contexts[GPU_PRECISION_COUNT] = {NULL};
  gpu_context *off_contexts[GPU_PRECISION_COUNT] = {NULL};
  bench_run run = {.data = data,
                   .contexts = contexts,
                   .off_contexts = o->against_off ? off_contexts : NULL,
                   .repeats = o->repeats,
                   .pad_multiple = o->pad_multiple,
                   .chain = o->chain,
                   .tune_budget_ms = o->tune_budget_ms,
                   .tune_cache = o->tune_cache,
                   .tune_cache_dir = o->tune_cache_dir,
                   .show_plans = o->show_plans,
                   .context_cycle = !o->no_context_cycle,
                   .fp8 = o->fp8,
                   .selection = {.only_network = o->network,
                                 .precision = o->precision,
                                 .activation = o->activation}};
  int status = 0, usable[GPU_PRECISION_COUNT] = {0};
  /* A context for FP32 (the ceilings and the launch cost use it) and for
   * each precision asked for that the GPU can run. */
  for (int p = 0; p < GPU_PRECISION_COUNT && status == 0; p++) {
    if (p != GPU_PRECISION_FP32 && o->precision >= 0 && p != o->precision)
      continue;
    char why[512];
    int check =
        check_precision(why, sizeof why, o, &run.selection, (gpu_precision)p);
    if (check < 0 && p == GPU_PRECISION_FP32) {
      fprintf(stderr, "mnist_bench: %s\n", why);
      status = -1;
      break;
    }
    if (check < 0) {
      run.selection.refused[p] = 1;
      printf("mnist_bench: skipping the %s rows: %s\n",
             gpu_precision_name((gpu_precision)p), why);
      continue;
    }
    if (check > 0) printf("mnist_bench: note: %s\n", why);
    usable[p] = 1;
  }
  if (status == 0)
    status = open_contexts(contexts, usable, o, (gpu_autotune)o->autotune);
  /* --against-off's twins: the rows' own precisions only (not FP32's
   * ceilings unless its rows run). */
  for (int p = 0; p < GPU_PRECISION_COUNT && o->against_off; p++)
    usable[p] = usable[p] && bench_precision_selected(&run.selection, p);
  if (status == 0 && o->against_off)
    status = open_contexts(off_contexts, usable, o, GPU_AUTOTUNE_OFF);
  int profiled = o->precision >= 0 ? o->precision
                 : o->trace        ? (int)GPU_PRECISION_BF16
                                   : 0;
  lt_activation activation =
      o->activation < 0 ? LT_ACTIVATION_RELU : (lt_activation)o->activation;
  if (status == 0 && (o->profile || o->trace) &&
      (!contexts[profiled] ||
       !bench_activation_selected(&run.selection, profiled, (int)activation)))
    status = -1; /* refused above, with the reason */
  else if (status == 0 && o->profile)
    status = bench_profile_steps(data, contexts[profiled], activation, &o->fp8,
                                 o->network);
  else if (status == 0 && o->trace)
    status = bench_trace_steps(data, contexts[profiled], activation, o->network,
                               o->pad_multiple, &o->fp8);
  else if (status == 0)
    status = measure(o, &run);
  if (status != 0) fprintf(stderr, "mnist_bench: failed (see above)\n");
  bench_json_destroy(run.json);
  for (int p = GPU_PRECISION_COUNT - 1; p >= 0; p--) {
    gpu_context_destroy(off_contexts[p]);
    gpu_context_destroy(contexts[p]);
  }
  return status == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* 1 when a CUDA device is there, else 0 with the reason on stderr. */
static int gpu_ready(void) {
  char why[256];
  if (gpu_device_available(why, sizeof why)) return 1;
  fprintf(stderr, "mnist_bench: needs a CUDA GPU: %s\n", why);
  return 0;
}

/* --alternatives: one context in the precision asked for (bf16 when
 * none), no data. */
static int run_alternatives(const bench_options *o) {
  gpu_precision precision =
      o->precision < 0 ? GPU_PRECISION_BF16 : (gpu_precision)o->precision;
  char why[512];
  int check = lt_precision_check_device(why, sizeof why, o->device, precision,
                                        LT_EPILOGUE_BIT(LT_EPILOGUE_DEFAULT));
  if (check < 0) {
    fprintf(stderr, "mnist_bench: %s\n", why);
    return EXIT_FAILURE;
  }
  if (check > 0) printf("mnist_bench: note: %s\n", why);
  gpu_options options = gpu_options_defaults();
  options.device = o->device;
  options.precision = precision;
  options.autotune = (gpu_autotune)o->autotune;
  /* One call at a time: no lanes to chain (--chain is refused). */
  options.chain = GPU_CHAIN_NONE;
  gpu_context *ctx = NULL;
  int status = gpu_context_create(&ctx, &options);
  if (status == 0) status = bench_alternatives_run(ctx, o->activation);
  if (status != 0) fprintf(stderr, "mnist_bench: failed (see above)\n");
  gpu_context_destroy(ctx);
  return status == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

/* --json: a file that can be replaced and none of the data files the
 * run reads (the data folder as the run finds it; none found: nothing to
 * compare). 0, or -1 with `err`. */
static int json_check(const bench_options *o, char *err, size_t err_size) {
  char dir[4096];
  if (bench_output_check("--json", o->json_path, err, err_size) != 0) return -1;
  if (data_source_find(dir, sizeof dir, o->data_dir, MNIST_SOURCE_DIR, NULL,
                       0) != 0)
    return 0;
  return data_source_check_output("--json", o->json_path, dir, err, err_size);
}

int main(int argc, char **argv) {
  bench_options o;
  char err[4400];
  if (bench_options_parse(&o, argc, argv, err, sizeof err) != 0) {
    cli_report_bad_flags(stderr, "mnist_bench", err);
    return 2;
  }
  if (o.help) {
    bench_options_usage(stdout);
    return EXIT_SUCCESS;
  }
  /* The output, like the flags, before anything is read: exit 2. */
  if (o.json_path && json_check(&o, err, sizeof err) != 0) {
    fprintf(stderr, "mnist_bench: %s\n", err);
    return 2;
  }
  if (o.check_flags) {
    bench_options_describe(stdout, &o);
    return EXIT_SUCCESS;
  }
  if (o.alternatives) return gpu_ready() ? run_alternatives(&o) : EXIT_FAILURE;
  char dir[4096];
  mnist_dataset data;
  if (data_source_load(&data, dir, sizeof dir, o.data_dir, MNIST_SOURCE_DIR, 0,
                       err, sizeof err) != 0) {
    fprintf(stderr, "mnist_bench: %s\n", err);
    return EXIT_FAILURE;
  }
  if (!gpu_ready()) {
    mnist_dataset_destroy(&data);
    return EXIT_FAILURE;
  }
  int status = run_bench(&o, &data);
  mnist_dataset_destroy(&data);
  return status;
}
