/* bench_options.c: mnist_bench's flags (bench_options.h). */
#include "app/bench_options.h"

#include <string.h>

#include "app/cli_flags.h"
#include "app/flag_choices.h"
#include "app/train_options.h"
#include "bench/bench_rows.h"
#include "bench/bench_trace.h"
#include "gpu/gpu_options.h"

void bench_options_usage(FILE *out) {
  fprintf(
      out,
      "usage: mnist_bench [--repeats N] [--json FILE] [--data-dir DIR]\n"
      "                   [--device N] [--precision P] [--activation A]\n"
      "                   [--autotune MODE] [--no-layers] [--chain LIST]\n"
      "                   [--tune-cache MODE] [--tune-cache-dir DIR]\n"
      "                   [--tune-budget MS] [--show-plans] [--against-off]\n"
      "                   [--no-context-cycle]\n"
      "                   [--network NET] [--pad-to N] [--fp8-format F]\n"
      "                   [--fp8-scaling S] [--fp8-fast-accum G]\n"
      "                   [--profile-step | --trace-step | --alternatives]\n"
      "                   [--check-flags]\n"
      "Trains fused, unfused and auto side by side (one warm-up epoch, then\n"
      "N interleaved timed epochs each, default 5, at most %d, in each\n"
      "order of making a group's trainers: the median of 3 N, 2 N for\n"
      "the host-launched pair) at 784-100-10 batch 256, 784-1024-1024-10\n"
      "batch 256 and 784-4096-4096-10 batch 4096, in every precision (fp32,\n"
      "tf32, bf16, fp16, fp8) or only in --precision P, with ReLU and GELU\n"
      "hidden layers or only --activation A; then times every cuBLASLt call\n"
      "of one step of each network, in each of those precisions (ReLU, or\n"
      "A): the matmul alone, fused and unfused (--no-layers skips this\n"
      "part).\n"
      "--autotune exact|fast|off: which candidates each row's step tuner\n"
      "may choose (default exact, as mnist_train; see mnist_train --help).\n"
      "--tune-cache use|refresh|off, --tune-cache-dir DIR, --tune-budget MS:\n"
      "the step tuner's cache and budget, as mnist_train's. --show-plans:\n"
      "after a network's rows, each row's step tuner report (fingerprint,\n"
      "each call's choice, the evidence), the tuner's part of mnist_train\n"
      "--show-plans.\n"
      "--against-off: after each twin group, each of its rows again, against\n"
      "the same row under --autotune off in this process: the pair made in\n"
      "both orders, their epochs alternating; its line ends with the row's\n"
      "epoch over off's beside it, median (min-max) of 2 N rounds, off's\n"
      "median, and whether the two steps launch the same kernels (about\n"
      "2.5-3 times the rows' time). With --autotune off it times off\n"
      "against another making of itself: the comparison's own floor.\n"
      "--no-context-cycle: no CUDA context made and destroyed after the\n"
      "warm-up of each row (and of the per-call timing's networks;\n"
      "on by default, as in mnist_train, so a row that reads its set\n"
      "from the tuning cache runs as fast as one that tuned it: on the\n"
      "H200 it ran 0.6-0.9 %% slower without; mnist_train's default\n"
      "network in fp8, 7 %%; about 0.2 s a row).\n"
      "--fp8-format F, --fp8-scaling S, --fp8-fast-accum G: the fp8 rows'\n"
      "recipe (see mnist_train --help).\n"
      "--chain LIST: how the step's kernels are chained (none, all, or\n"
      "side-partials,sgd-lane,priorities,trigger; see mnist_train --help;\n"
      "default none). --network seed|mid|big: only that network's rows\n"
      "(784-100-10, 784-1024-1024-10, 784-4096-4096-10). --pad-to 8|16|32:\n"
      "the +pad rows' widths padded to that multiple (default 8).\n"
      "--json FILE writes the same numbers, replacing FILE whole at the\n"
      "end (its folder is checked first). Each flag at most once.\n"
      "--profile-step: instead, after a warm-up epoch, runs one fused and\n"
      "then one unfused step of each network (precision P, default fp32)\n"
      "from the host between cudaProfilerStart and Stop, for\n"
      "  ncu --profile-from-start off --clock-control none mnist_bench "
      "--profile-step\n"
      "--trace-step: instead, one auto+pad step per batch-256 network, node "
      "by node\n"
      "--alternatives: instead, the alternative epilogues (DRELU, DGELU,\n"
      "split, BGRADA; docs/backprop.md section 11) timed per call at issue\n"
      "21's shapes in P (default bf16), relu and gelu or only A, with the\n"
      "kernels each ran; reads no data\n"
      "Each mode refuses the flags it would ignore: --repeats, --no-layers,\n"
      "--show-plans, --no-context-cycle, --against-off and --json are the\n"
      "timed rows' only, --pad-to theirs and --trace-step's; --alternatives\n"
      "reads no --network, --chain, --data-dir or --fp8-* and refuses\n"
      "--precision fp8; the --fp8-* flags need fp8 rows (--precision fp8,\n"
      "or every precision in the rows' run).\n"
      "--check-flags: check the other flags and the --json path, say what\n"
      "would run and exit (0 when they pass, else 2); reads no data, needs\n"
      "no GPU, leaves no file.\n"
      "Exit 2: the command line cannot work (a bad flag, a flag refused with\n"
      "another or by this GPU, a --json path that cannot be written or names\n"
      "a data file); 1: bad data, no GPU, a failure while running.\n",
      BENCH_MAX_REPEATS);
}

static void store_precision(void *target, int index) {
  *(int *)target = gpu_precision_parse(flag_precision_names()[index]);
}

static void store_activation(void *target, int index) {
  *(int *)target = index ? LT_ACTIVATION_GELU : LT_ACTIVATION_RELU;
}

static void store_network(void *target, int index) {
  *(int *)target = index + 1;
}

static void store_pad(void *target, int index) {
  *(int *)target = train_options_pad_choice(index);
}

static void store_autotune(void *target, int index) {
  *(int *)target = (int)gpu_autotune_choice(index);
}

/* The modes of a run: the timed rows (the default) and the three that
 * replace them. */
enum {
  MODE_ROWS = 1,
  MODE_PROFILE = 2,
  MODE_TRACE = 4,
  MODE_ALTERNATIVES = 8,
  MODE_STEPS = MODE_ROWS | MODE_PROFILE | MODE_TRACE
};

/* The flags only some modes read (the others: every mode). */
static const struct {
  const char *name;
  int modes;
} mode_flags[] = {
    {"repeats", MODE_ROWS},
    {"no-layers", MODE_ROWS},
    {"show-plans", MODE_ROWS},
    {"no-context-cycle", MODE_ROWS},
    {"against-off", MODE_ROWS},
    {"json", MODE_ROWS},
    {"pad-to", MODE_ROWS | MODE_TRACE},
    {"network", MODE_STEPS},
    {"chain", MODE_STEPS},
    {"data-dir", MODE_STEPS},
    {"fp8-format", MODE_STEPS},
    {"fp8-scaling", MODE_STEPS},
    {"fp8-fast-accum", MODE_STEPS},
};

static int given_by_name(const cli_flag *flags, int count, const char *name) {
  for (int i = 0; i < count; i++)
    if (strcmp(flags[i].name, name) == 0) return *flags[i].given;
  return 0;
}

static const char *mode_flag_name(const bench_options *o) {
  return o->profile ? "--profile-step"
         : o->trace ? "--trace-step"
                    : "--alternatives";
}

/* One mode at most; each mode's flags only; the fp8 rows' flags only
 * where fp8 rows run. */
static int check_modes(const bench_options *o, const cli_flag *flags, int count,
                       char *err, size_t err_size) {
  int special = o->profile + o->trace + o->alternatives;
  if (special > 1) {
    snprintf(err, err_size,
             "--profile-step, --trace-step and --alternatives: expected at "
             "most one of them, found %d",
             special);
    return -1;
  }
  int mode = o->profile        ? MODE_PROFILE
             : o->trace        ? MODE_TRACE
             : o->alternatives ? MODE_ALTERNATIVES
                               : MODE_ROWS;
  if (mode != MODE_ROWS && o->json_path) {
    snprintf(err, err_size,
             "--json with %s: expected the timed rows' run (--json writes "
             "their results), found a run that writes none",
             mode_flag_name(o));
    return -1;
  }
  for (size_t f = 0; f < sizeof mode_flags / sizeof mode_flags[0]; f++)
    if (!(mode_flags[f].modes & mode) &&
        given_by_name(flags, count, mode_flags[f].name)) {
      snprintf(err, err_size,
               "--%s with %s: expected only the flags %s reads, found one "
               "it would ignore",
               mode_flags[f].name, mode_flag_name(o), mode_flag_name(o));
      return -1;
    }
  if (o->alternatives && o->precision == GPU_PRECISION_FP8) {
    snprintf(err, err_size,
             "--alternatives --precision fp8: expected fp32, tf32, bf16 or "
             "fp16, found fp8 (cuBLASLt has no FP8 BGRADA, BGRADB or "
             "DRELU_BGRAD to compare)");
    return -1;
  }
  int fp8_rows = o->precision == GPU_PRECISION_FP8 ||
                 (o->precision < 0 && mode == MODE_ROWS);
  if (o->fp8_given && !fp8_rows) {
    snprintf(err, err_size,
             "--fp8-format, --fp8-scaling and --fp8-fast-accum: expected fp8 "
             "rows (--precision fp8, or every precision in the timed rows' "
             "run), found a run in %s",
             o->precision >= 0 ? gpu_precision_name((gpu_precision)o->precision)
             : o->trace        ? "bf16 (--trace-step's default)"
                               : "fp32 (--profile-step's default)");
    return -1;
  }
  int net_count = 0;
  const bench_net *nets = bench_nets(&net_count);
  if (o->trace && o->network > 0 &&
      nets[o->network - 1].batch > BENCH_TRACE_MAX_BATCH) {
    snprintf(err, err_size,
             "--trace-step --network %s: expected a network of batch <= %d, "
             "found one of batch %d (--trace-step traces the latency-bound "
             "networks)",
             bench_network_choices()[o->network - 1], BENCH_TRACE_MAX_BATCH,
             nets[o->network - 1].batch);
    return -1;
  }
  return 0;
}

int bench_options_parse(bench_options *out, int argc, char **argv, char *err,
                        size_t err_size) {
  memset(out, 0, sizeof *out);
  out->repeats = 5;
  out->precision = -1;
  out->activation = -1;
  out->autotune = (int)GPU_AUTOTUNE_EXACT;
  cli_flag flags[] = {
      {.name = "repeats",
       .kind = CLI_INT,
       .target = &out->repeats,
       .low = 1,
       .high = BENCH_MAX_REPEATS},
      {.name = "json", .kind = CLI_STRING, .target = &out->json_path},
      {.name = "data-dir", .kind = CLI_STRING, .target = &out->data_dir},
      {.name = "device",
       .kind = CLI_INT,
       .target = &out->device,
       .low = 0,
       .high = 1023},
      {.name = "precision",
       .kind = CLI_CHOICE,
       .target = &out->precision,
       .choices = flag_precision_names(),
       .store = store_precision},
      {.name = "activation",
       .kind = CLI_CHOICE,
       .target = &out->activation,
       .choices = flag_activation_names(),
       .store = store_activation},
      {.name = "autotune",
       .kind = CLI_CHOICE,
       .target = &out->autotune,
       .choices = gpu_autotune_choices(),
       .store = store_autotune},
      flag_fp8(FP8_RECIPE_FORMAT, &out->fp8, NULL),
      flag_fp8(FP8_RECIPE_SCALING, &out->fp8, NULL),
      flag_fp8(FP8_RECIPE_FAST_ACCUM, &out->fp8, NULL),
      {.name = "chain",
       .kind = CLI_CUSTOM,
       .target = &out->chain,
       .parse = train_options_parse_chain},
      {.name = "tune-cache",
       .kind = CLI_CHOICE,
       .target = &out->tune_cache,
       .choices = tune_cache_mode_choices(),
       .store = flag_store_tune_cache},
      {.name = "tune-cache-dir",
       .kind = CLI_STRING,
       .target = &out->tune_cache_dir},
      {.name = "tune-budget",
       .kind = CLI_FLOAT,
       .target = &out->tune_budget_ms,
       .low = 1,
       .high = 600000},
      {.name = "network",
       .kind = CLI_CHOICE,
       .target = &out->network,
       .choices = bench_network_choices(),
       .store = store_network},
      {.name = "pad-to",
       .kind = CLI_CHOICE,
       .target = &out->pad_multiple,
       .choices = train_options_pad_choices(),
       .store = store_pad},
      {.name = "no-layers",
       .kind = CLI_SWITCH,
       .target = &out->skip_layers,
       .switch_value = 1},
      {.name = "show-plans",
       .kind = CLI_SWITCH,
       .target = &out->show_plans,
       .switch_value = 1},
      {.name = "against-off",
       .kind = CLI_SWITCH,
       .target = &out->against_off,
       .switch_value = 1},
      {.name = "no-context-cycle",
       .kind = CLI_SWITCH,
       .target = &out->no_context_cycle,
       .switch_value = 1},
      {.name = "profile-step",
       .kind = CLI_SWITCH,
       .target = &out->profile,
       .switch_value = 1},
      {.name = "trace-step",
       .kind = CLI_SWITCH,
       .target = &out->trace,
       .switch_value = 1},
      {.name = "alternatives",
       .kind = CLI_SWITCH,
       .target = &out->alternatives,
       .switch_value = 1},
      {.name = "help",
       .kind = CLI_SWITCH,
       .target = &out->help,
       .switch_value = 1},
      {.name = "check-flags",
       .kind = CLI_SWITCH,
       .target = &out->check_flags,
       .switch_value = 1},
  };
  enum { MAX_FLAGS = 32 };
  int count = (int)(sizeof flags / sizeof flags[0]), given[MAX_FLAGS] = {0};
  for (int i = 0; i < count && i < MAX_FLAGS; i++)
    flags[i].given = &given[i];
  if (count > MAX_FLAGS ||
      cli_parse(flags, count, argc, argv, err, err_size) != 0)
    return -1;
  out->fp8_given = given_by_name(flags, count, "fp8-format") ||
                   given_by_name(flags, count, "fp8-scaling") ||
                   given_by_name(flags, count, "fp8-fast-accum");
  return check_modes(out, flags, count, err, err_size);
}

void bench_options_describe(FILE *out, const bench_options *o) {
  const char *precision = o->precision < 0
                              ? "every precision"
                              : gpu_precision_name((gpu_precision)o->precision);
  const char *activation =
      o->activation < 0 ? "relu and gelu"
                        : lt_activation_name((lt_activation)o->activation);
  if (o->alternatives) {
    fprintf(out,
            "mnist_bench: flags ok: would time the alternative epilogues per "
            "call in %s, %s, autotune %s; reads no data; device %d\n",
            o->precision < 0 ? "bf16" : precision, activation,
            gpu_autotune_name((gpu_autotune)o->autotune), o->device);
    return;
  }
  if (o->trace)
    fprintf(out,
            "mnist_bench: flags ok: would trace one auto+pad step of each "
            "batch-256 network in %s, %s",
            o->precision < 0 ? "bf16" : precision,
            o->activation < 0 ? "relu" : activation);
  else if (o->profile)
    fprintf(out,
            "mnist_bench: flags ok: would profile one fused and one unfused "
            "step of each network in %s, %s",
            o->precision < 0 ? "fp32" : precision,
            o->activation < 0 ? "relu" : activation);
  else
    fprintf(out,
            "mnist_bench: flags ok: would train every network in %s, %s, "
            "fused, unfused and auto, %d timed epochs per row, autotune %s; "
            "%s; %s%s",
            precision, activation, o->repeats,
            gpu_autotune_name((gpu_autotune)o->autotune),
            o->skip_layers ? "no per-call timing" : "then time every call",
            o->json_path ? "JSON to " : "no JSON",
            o->json_path ? o->json_path : "");
  char chain[128];
  gpu_chain_format(chain, sizeof chain, o->chain);
  fprintf(out, "; networks %s",
          o->network ? bench_network_choices()[o->network - 1] : "all");
  if (!o->profile) /* the profiled steps are not padded */
    fprintf(out, "; +pad to %d", o->pad_multiple ? o->pad_multiple : 8);
  fprintf(out, "; chain %s", chain);
  if (!o->profile && !o->trace && !o->alternatives)
    fprintf(out, "; context cycle %s%s", o->no_context_cycle ? "off" : "on",
            o->against_off ? "; each row against --autotune off" : "");
  fprintf(out, "; data from %s; device %d\n",
          o->data_dir ? o->data_dir : "$MNIST_DIR, else data/mnist", o->device);
}
