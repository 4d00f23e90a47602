/* bench_options.h: the command line of mnist_bench, parsed by the same
 * strict parser as mnist_train's (cli_flags.h). Plain C. */
#ifndef MNIST_EPILOGS_BENCH_OPTIONS_H
#define MNIST_EPILOGS_BENCH_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

#include "bench/bench_rows.h" /* BENCH_MAX_REPEATS */
#include "train/tune_cache.h"

typedef struct bench_options {
  const char *data_dir;  /* NULL: $MNIST_DIR, then data/mnist */
  const char *json_path; /* NULL: no JSON */
  int repeats;           /* timed epochs per row, 1..BENCH_MAX_REPEATS */
  int device;
  int skip_layers;      /* --no-layers */
  int show_plans;       /* --show-plans: each row's step tuner report */
  int against_off;      /* --against-off: each row also against its twin
                           under --autotune off, in the same process
                           (bench_off.h) */
  int no_context_cycle; /* --no-context-cycle: trainer_config.context_cycle
                           off (on by default, as in mnist_train) */
  int precision;        /* a gpu_precision, or -1: all of them */
  int activation;       /* an lt_activation, or -1: both */
  int autotune;         /* a gpu_autotune (default exact) */
  unsigned chain;       /* GPU_CHAIN_* bits (--chain; default none) */
  fp8_recipe fp8;       /* the fp8 rows' recipe (--fp8-*; default zero) */
  int network;          /* --network: 0 every network, i + 1 bench_nets()[i] */
  int pad_multiple;     /* --pad-to: the +pad rows' multiple (0: 8) */
  int profile;          /* --profile-step: one fused and one unfused step per
                           network, in `precision` (fp32 when -1) */
  int trace;            /* --trace-step: one step of each small network, node
                           by node, in `precision` (bf16 when -1) */
  int alternatives;     /* --alternatives: the alternative epilogues timed per
                           call (bench_alternatives.h), in `precision` (bf16
                           when -1) */
  float tune_budget_ms; /* --tune-budget (0: the default) */
  tune_cache_mode tune_cache; /* --tune-cache (default use) */
  const char *tune_cache_dir; /* --tune-cache-dir (NULL: the default) */
  int help;
  int check_flags; /* parse, say what would run, exit: no data, no GPU */
  int fp8_given;   /* one of --fp8-format, --fp8-scaling, --fp8-fast-accum */
} bench_options;

/* Parses argv[1..argc) over the defaults (5 repeats, device 0). Each mode
 * (the timed rows, --profile-step, --trace-step, --alternatives) refuses
 * the flags it does not read rather than ignore them: --repeats,
 * --no-layers and --json are the rows'; --pad-to the rows' and
 * --trace-step's; --network, --chain and --data-dir every mode's but
 * --alternatives'; the --fp8-* flags need fp8 rows (--precision fp8, or
 * every precision in the rows' run); --alternatives refuses --precision
 * fp8 (cuBLASLt has no FP8 form of most alternatives); --against-off is the
 * rows' (under --autotune off: off against itself, the comparison's floor).
 * Returns 0, or -1 with `err` naming the flag, what was expected and what
 * was found. */
int bench_options_parse(bench_options *out, int argc, char **argv, char *err,
                        size_t err_size);

void bench_options_usage(FILE *out);

/* What a run with these options would do, in one line (--check-flags):
 * the rows or the profiled steps, the --json target, the data folder. */
void bench_options_describe(FILE *out, const bench_options *o);

#endif
