/* train_options.c: mnist_train's flags (train_options.h). */
#include "app/train_options.h"

#include <math.h>
#include <string.h>

#include "app/cli_flags.h"
#include "app/flag_choices.h"

void train_options_defaults(train_options *out) {
  memset(out, 0, sizeof *out);
  out->config = trainer_config_defaults();
  out->config.context_cycle = 1; /* the program's default, not the library's */
  out->steps = -1;
  out->gpu = gpu_options_defaults();
}

int train_options_parse_chain(void *target, const char *value, char *err,
                              size_t err_size) {
  char why[256];
  if (gpu_chain_parse((unsigned *)target, value, why, sizeof why) == 0)
    return 0;
  snprintf(err, err_size, "--chain: %s", why);
  return -1;
}

const char *const *train_options_pad_choices(void) {
  static const char *const names[] = {"8", "16", "32", NULL};
  return names;
}

int train_options_pad_choice(int index) {
  return 8 << index;
}

/* --pad-to N: padding on, to a multiple of N. */
static void store_pad_to(void *target, int index) {
  trainer_config *c = target;
  c->pad_units = 1;
  c->pad_multiple = train_options_pad_choice(index);
}

int train_options_parse_hidden(int *hidden, int *count, const char *text,
                               char *err, size_t err_size) {
  if (strcmp(text, "none") == 0) {
    *count = 0;
    return 0;
  }
  int n = 0;
  const char *at = text;
  while (1) {
    char piece[32];
    size_t len = strcspn(at, ",");
    int width = 0;
    if (len == 0 || len >= sizeof piece || n == MLP_MAX_LAYERS - 1) {
      snprintf(err, err_size,
               "--hidden: expected 1 to %d comma-separated widths (or "
               "'none'), found '%s'",
               MLP_MAX_LAYERS - 1, text);
      return -1;
    }
    memcpy(piece, at, len);
    piece[len] = '\0';
    if (cli_parse_int(&width, piece, 1, MLP_MAX_WIDTH) != 0) {
      snprintf(err, err_size,
               "--hidden: expected widths from 1 to %d, found '%s' in '%s'",
               MLP_MAX_WIDTH, piece, text);
      return -1;
    }
    hidden[n++] = width;
    if (at[len] == '\0') break;
    at += len + 1;
  }
  *count = n;
  return 0;
}

static int parse_hidden_flag(void *target, const char *value, char *err,
                             size_t err_size) {
  int hidden[MLP_MAX_LAYERS], count = 0;
  if (train_options_parse_hidden(hidden, &count, value, err, err_size) != 0)
    return -1;
  return trainer_config_set_hidden(target, hidden, count, err, err_size);
}

static const char *const schedule_names[] = {"cosine", "constant", NULL};

static const char *const order_names[] = {"shuffle", "file", NULL};

static void store_order(void *target, int index) {
  *(int *)target = index == 1;
}

static void store_activation(void *target, int index) {
  *(lt_activation *)target = index ? LT_ACTIVATION_GELU : LT_ACTIVATION_RELU;
}

static void store_precision(void *target, int index) {
  *(gpu_precision *)target =
      (gpu_precision)gpu_precision_parse(flag_precision_names()[index]);
}

/* A power of two from 2^-24 to 2^24 (scaling by it is exact), written as
 * the strict parser takes numbers (cli_parse_real: no hex, spaces or '+'). */
static int parse_loss_scale(void *target, const char *value, char *err,
                            size_t err_size) {
  double v = 0.0;
  int exponent = 0;
  if (cli_parse_real(&v, value) != 0 || !(v > 0) ||
      frexp(v, &exponent) != 0.5 || exponent < -23 || exponent > 25) {
    snprintf(err, err_size,
             "--loss-scale: expected a power of two from 2^-24 to 2^24 (e.g. "
             "1024), found '%s'",
             value);
    return -1;
  }
  *(float *)target = (float)v;
  return 0;
}

static void store_cosine(void *target, int index) {
  *(int *)target = index == 0;
}

static void store_autotune(void *target, int index) {
  *(gpu_autotune *)target = gpu_autotune_choice(index);
}

/* The flags only training reads (--epochs 0 refuses them: one rule). */
static const char *const training_only[] = {"steps",
                                            "lr",
                                            "momentum",
                                            "schedule",
                                            "seed",
                                            "order",
                                            "save",
                                            "log",
                                            "show-plans",
                                            "chain",
                                            "no-graphs",
                                            "loss-scale",
                                            "context-cycle",
                                            "no-context-cycle",
                                            "tune-cache",
                                            "tune-cache-dir",
                                            "tune-here",
                                            "tune-budget",
                                            NULL};

/* The first flag of `flags` in training_only[] that was given, or NULL
 * (every flag's `given` is set). */
static const char *training_flag_given(const cli_flag *flags, int count) {
  for (int i = 0; i < count; i++)
    for (int t = 0; training_only[t]; t++)
      if (*flags[i].given && strcmp(flags[i].name, training_only[t]) == 0)
        return flags[i].name;
  return NULL;
}

/* 1 when the flag `name` of `flags` was given. */
static int given_by_name(const cli_flag *flags, int count, const char *name) {
  for (int i = 0; i < count; i++)
    if (strcmp(flags[i].name, name) == 0) return *flags[i].given != 0;
  return 0;
}

void train_options_training_flags(char *out, size_t size) {
  size_t at = 0;
  out[0] = '\0';
  for (int t = 0; training_only[t] && at < size; t++)
    at += (size_t)snprintf(out + at, size - at, "%s--%s", t ? ", " : "",
                           training_only[t]);
}

/* The rules between flags, after each parsed alone. */
static int check_combinations(const train_options *out, const char *training,
                              char *err, size_t err_size) {
  const trainer_config *c = &out->config;
  char names[512];
  train_options_training_flags(names, sizeof names);
  if (c->epochs == 0 && !out->load_path) {
    snprintf(err, err_size,
             "--epochs 0 evaluates a trained network: expected --load FILE "
             "with it, found none");
    return -1;
  }
  if (c->epochs == 0 && training) {
    snprintf(err, err_size,
             "--epochs 0 evaluates only: expected none of the flags only "
             "training reads (%s), found --%s",
             names, training);
    return -1;
  }
  return 0;
}

int train_options_parse(train_options *out, int argc, char **argv, char *err,
                        size_t err_size) {
  train_options_defaults(out);
  trainer_config *c = &out->config;
  cli_flag flags[] = {
      {.name = "epochs",
       .kind = CLI_INT,
       .target = &c->epochs,
       .low = 0,
       .high = 100000},
      {.name = "batch",
       .kind = CLI_INT,
       .target = &c->batch,
       .low = 1,
       .high = 65536,
       .given = &out->batch_given},
      {.name = "lr",
       .kind = CLI_FLOAT,
       .target = &c->lr,
       .low = 0,
       .low_open = 1,
       .high = 100},
      {.name = "momentum",
       .kind = CLI_FLOAT,
       .target = &c->momentum,
       .low = 0,
       .high = 1,
       .high_open = 1},
      {.name = "schedule",
       .kind = CLI_CHOICE,
       .target = &c->cosine,
       .choices = schedule_names,
       .store = store_cosine},
      {.name = "hidden",
       .kind = CLI_CUSTOM,
       .target = c,
       .parse = parse_hidden_flag,
       .given = &out->hidden_given},
      {.name = "seed", .kind = CLI_U64, .target = &c->seed},
      {.name = "mode",
       .kind = CLI_CHOICE,
       .target = &c->mode,
       .choices = flag_mode_names(),
       .store = flag_store_mode},
      {.name = "no-graphs",
       .kind = CLI_SWITCH,
       .target = &c->graphs,
       .switch_value = 0},
      {.name = "data-dir", .kind = CLI_STRING, .target = &out->data_dir},
      {.name = "precision",
       .kind = CLI_CHOICE,
       .target = &out->gpu.precision,
       .choices = flag_precision_names(),
       .store = store_precision,
       .given = &out->precision_given},
      flag_fp8(FP8_RECIPE_FORMAT, &c->fp8, &out->fp8_given[0]),
      flag_fp8(FP8_RECIPE_SCALING, &c->fp8, &out->fp8_given[1]),
      flag_fp8(FP8_RECIPE_FAST_ACCUM, &c->fp8, &out->fp8_given[2]),
      {.name = "loss-scale",
       .kind = CLI_CUSTOM,
       .target = &c->loss_scale,
       .parse = parse_loss_scale},
      {.name = "steps",
       .kind = CLI_INT,
       .target = &out->steps,
       .low = 0,
       .high = 100000000},
      {.name = "order",
       .kind = CLI_CHOICE,
       .target = &c->file_order,
       .choices = order_names,
       .store = store_order},
      {.name = "save", .kind = CLI_STRING, .target = &out->save_path},
      {.name = "load", .kind = CLI_STRING, .target = &out->load_path},
      {.name = "activation",
       .kind = CLI_CHOICE,
       .target = &c->activation,
       .choices = flag_activation_names(),
       .store = store_activation,
       .given = &out->activation_given},
      {.name = "pad-units",
       .kind = CLI_SWITCH,
       .target = &c->pad_units,
       .switch_value = 1},
      {.name = "pad-to",
       .kind = CLI_CHOICE,
       .target = c,
       .choices = train_options_pad_choices(),
       .store = store_pad_to},
      {.name = "chain",
       .kind = CLI_CUSTOM,
       .target = &out->gpu.chain,
       .parse = train_options_parse_chain},
      {.name = "tf32", .kind = CLI_SWITCH, .replaced_by = "--precision tf32"},
      {.name = "autotune",
       .kind = CLI_CHOICE,
       .target = &out->gpu.autotune,
       .choices = gpu_autotune_choices(),
       .store = store_autotune},
      {.name = "tune-cache",
       .kind = CLI_CHOICE,
       .target = &c->tune_cache,
       .choices = tune_cache_mode_choices(),
       .store = flag_store_tune_cache},
      {.name = "tune-cache-dir",
       .kind = CLI_STRING,
       .target = &c->tune_cache_dir},
      {.name = "tune-here",
       .kind = CLI_SWITCH,
       .target = &c->tune_apart,
       .switch_value = 0},
      {.name = "context-cycle",
       .kind = CLI_SWITCH,
       .target = &c->context_cycle,
       .switch_value = 1},
      {.name = "no-context-cycle",
       .kind = CLI_SWITCH,
       .target = &c->context_cycle,
       .switch_value = 0},
      {.name = "tune-budget",
       .kind = CLI_FLOAT,
       .target = &c->tune_budget_ms,
       .low = 1,
       .high = 600000},
      {.name = "device",
       .kind = CLI_INT,
       .target = &out->gpu.device,
       .low = 0,
       .high = 1023},
      {.name = "log", .kind = CLI_STRING, .target = &out->log_path},
      {.name = "quiet",
       .kind = CLI_SWITCH,
       .target = &out->quiet,
       .switch_value = 1},
      {.name = "show-plans",
       .kind = CLI_SWITCH,
       .target = &out->show_plans,
       .switch_value = 1},
      {.name = "help",
       .kind = CLI_SWITCH,
       .target = &out->help,
       .switch_value = 1},
      {.name = "check-flags",
       .kind = CLI_SWITCH,
       .target = &out->check_flags,
       .switch_value = 1},
      {.name = "check-data",
       .kind = CLI_SWITCH,
       .target = &out->check_data,
       .switch_value = 1},
  };
  /* Every flag records whether it was given: the rules below ask. */
  enum { MAX_FLAGS = 64 };
  int count = (int)(sizeof flags / sizeof flags[0]), given[MAX_FLAGS] = {0};
  for (int i = 0; i < count && i < MAX_FLAGS; i++)
    if (!flags[i].given) flags[i].given = &given[i];
  if (cli_parse(flags, count, argc, argv, err, err_size) != 0 ||
      check_combinations(out, training_flag_given(flags, count), err,
                         err_size) != 0)
    return -1;
  if (given_by_name(flags, count, "context-cycle") &&
      given_by_name(flags, count, "no-context-cycle")) {
    snprintf(err, err_size,
             "expected one of --context-cycle (the default) and "
             "--no-context-cycle, found both");
    return -1;
  }
  if (c->epochs == 0 || out->steps == 0)
    c->context_cycle = 0; /* no training, nothing to gain */
  /* --epochs 0 --load takes the file's precision unless --precision is
   * given: the fp8 flags are checked once it is known
   * (train_options_check_fp8, after the load). */
  int precision_from_file = c->epochs == 0 && !out->precision_given;
  if (!precision_from_file && train_options_check_fp8(out, err, err_size))
    return -1;
  out->mode_given = given_by_name(flags, count, "mode");
  out->pad_given = given_by_name(flags, count, "pad-units") ||
                   given_by_name(flags, count, "pad-to");
  out->pad_asked = c->pad_units ? (c->pad_multiple ? c->pad_multiple : 8) : 0;
  trainer_config_fit_precision(c, out->gpu.precision);
  if (out->steps > 0) c->max_steps = out->steps;
  return 0;
}

int train_options_check_fp8(const train_options *o, char *err,
                            size_t err_size) {
  static const char *const names[] = {"--fp8-format", "--fp8-scaling",
                                      "--fp8-fast-accum"};
  if (o->gpu.precision == GPU_PRECISION_FP8) return 0;
  for (int i = 0; i < 3; i++) {
    if (!o->fp8_given[i]) continue;
    snprintf(err, err_size,
             "%s applies to --precision fp8 only, found --precision %s%s",
             names[i], gpu_precision_name(o->gpu.precision),
             o->precision_given ? "" : " (the run's)");
    return -1;
  }
  return 0;
}
