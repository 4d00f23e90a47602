/* mlp_checkpoint_meta.c: the checkpoint's metadata
 * (mlp_checkpoint_meta.h). */
#include "checkpoint/mlp_checkpoint_meta.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mlp_checkpoint_meta_init(mlp_checkpoint_meta *meta) {
  memset(meta, 0, sizeof *meta);
  meta->epochs = -1;
  meta->schedule_epochs = -1;
  meta->batch = -1;
  meta->test_accuracy = -1;
}

static void add_pair(mlp_checkpoint_pairs *out, const char *key,
                     const char *value) {
  if (!value || !*value || out->count >= MLP_CHECKPOINT_PAIRS) return;
  out->pairs[out->count].key = key;
  out->pairs[out->count++].value = value;
}

/* The shortest %g text that reads back as `value`. */
static void shortest_text(char *out, size_t size, double value) {
  for (int digits = 6; digits <= 17; digits++) {
    snprintf(out, size, "%.*g", digits, value);
    if (strtod(out, NULL) == value) return;
  }
}

void mlp_checkpoint_pairs_fill(mlp_checkpoint_pairs *out,
                               const mlp_checkpoint_meta *meta,
                               const char *widths) {
  memset(out, 0, sizeof *out);
  add_pair(out, "format", MLP_CHECKPOINT_FORMAT);
  add_pair(out, "widths", widths);
  if (!meta) return;
  add_pair(out, "activation", meta->activation);
  add_pair(out, "precision", meta->precision);
  if (meta->epochs >= 0) {
    snprintf(out->numbers[0], sizeof out->numbers[0], "%d", meta->epochs);
    add_pair(out, "epochs", out->numbers[0]);
  }
  if (meta->has_seed) {
    snprintf(out->numbers[1], sizeof out->numbers[1], "%llu", meta->seed);
    add_pair(out, "seed", out->numbers[1]);
  }
  if (meta->batch >= 1) {
    snprintf(out->numbers[2], sizeof out->numbers[2], "%d", meta->batch);
    add_pair(out, "batch", out->numbers[2]);
  }
  if (meta->test_accuracy >= 0 && isfinite(meta->test_accuracy)) {
    shortest_text(out->numbers[3], sizeof out->numbers[3], meta->test_accuracy);
    add_pair(out, "test_accuracy", out->numbers[3]);
  }
  add_pair(out, "version", meta->version);
  add_pair(out, "lr", meta->lr);
  add_pair(out, "momentum", meta->momentum);
  add_pair(out, "schedule", meta->schedule);
  add_pair(out, "order", meta->order);
  add_pair(out, "steps", meta->steps);
  add_pair(out, "pixel_scale", meta->pixel_scale);
  add_pair(out, "pixel_shift", meta->pixel_shift);
  add_pair(out, "mode", meta->mode);
  add_pair(out, "pad_to", meta->pad_to);
  add_pair(out, "fp8_format", meta->fp8_format);
  add_pair(out, "fp8_scaling", meta->fp8_scaling);
  add_pair(out, "fp8_fast_accum", meta->fp8_fast_accum);
  if (meta->schedule_epochs >= 0) {
    snprintf(out->numbers[4], sizeof out->numbers[4], "%d",
             meta->schedule_epochs);
    add_pair(out, "schedule_epochs", out->numbers[4]);
  }
}

/* Appends ", " (unless first) and `before` `text` `after` to out[*used..],
 * `text` with bytes outside printable ASCII as '?'; nothing when `text` is
 * "". */
static void append(char *out, size_t size, size_t *used, const char *before,
                   const char *text, const char *after) {
  if (!text[0] || *used + 1 >= size) return;
  char clean[MLP_CHECKPOINT_TEXT];
  size_t n = 0;
  for (; text[n] && n + 1 < sizeof clean; n++)
    clean[n] = text[n] >= ' ' && text[n] <= '~' ? text[n] : '?';
  clean[n] = 0;
  int wrote = snprintf(out + *used, size - *used, "%s%s%s%s", *used ? ", " : "",
                       before, clean, after);
  if (wrote > 0) *used += (size_t)wrote;
  if (*used >= size) *used = size - 1;
}

void mlp_checkpoint_meta_describe(char *out, size_t size,
                                  const mlp_checkpoint_meta *meta) {
  size_t used = 0;
  char number[64];
  if (size == 0) return;
  out[0] = 0;
  append(out, size, &used, "", meta->widths, "");
  append(out, size, &used, "", meta->activation, "");
  append(out, size, &used, "", meta->precision, "");
  append(out, size, &used, "fp8 ", meta->fp8_format, "");
  append(out, size, &used, "", meta->fp8_scaling, " scaling");
  append(out, size, &used, "fast accumulation ", meta->fp8_fast_accum, "");
  append(out, size, &used, "", meta->mode, " mode");
  if (strcmp(meta->pad_to, "none") == 0)
    append(out, size, &used, "", "units not padded", "");
  else
    append(out, size, &used, "units padded to ", meta->pad_to, "");
  if (meta->epochs >= 0 && meta->batch >= 1)
    snprintf(number, sizeof number, "%d epochs of batch %d", meta->epochs,
             meta->batch);
  else if (meta->epochs >= 0)
    snprintf(number, sizeof number, "%d epochs", meta->epochs);
  else if (meta->batch >= 1)
    snprintf(number, sizeof number, "batch %d", meta->batch);
  else
    number[0] = 0;
  append(out, size, &used, "", number, "");
  if (meta->test_accuracy >= 0 && isfinite(meta->test_accuracy)) {
    snprintf(number, sizeof number, "%.2f", meta->test_accuracy);
    append(out, size, &used, "test accuracy ", number, "%");
  }
}

/* Copies the metadata string `key` into `out` (untouched when absent). */
static int read_text(char *out, const safetensors_file *file, const char *key,
                     const char *path, char *err, size_t err_size) {
  const char *value = safetensors_meta(file, key);
  if (!value) return 0;
  if (strlen(value) >= MLP_CHECKPOINT_TEXT) {
    snprintf(err, err_size,
             "%s: metadata '%s': expected at most %d characters, found %zu",
             path, key, MLP_CHECKPOINT_TEXT - 1, strlen(value));
    return -1;
  }
  snprintf(out, MLP_CHECKPOINT_TEXT, "%s", value);
  return 0;
}

/* A whole decimal integer from `low` to `high` into *out (untouched when
 * absent); *found set to 1 when present. */
static int read_integer(unsigned long long *out, int *found,
                        const safetensors_file *file, const char *key,
                        unsigned long long low, unsigned long long high,
                        const char *path, char *err, size_t err_size) {
  const char *value = safetensors_meta(file, key);
  if (!value) return 0;
  char *end = NULL;
  errno = 0;
  unsigned long long number = strtoull(value, &end, 10);
  if (value[0] < '0' || value[0] > '9' || *end || errno || number < low ||
      number > high) {
    snprintf(err, err_size,
             "%s: metadata '%s': expected an integer from %llu to %llu, found "
             "'%.40s'",
             path, key, low, high, value);
    return -1;
  }
  *out = number;
  *found = 1;
  return 0;
}

static int read_accuracy(double *out, const safetensors_file *file,
                         const char *path, char *err, size_t err_size) {
  const char *value = safetensors_meta(file, "test_accuracy");
  if (!value) return 0;
  char *end = NULL;
  double number = strtod(value, &end);
  if (end == value || *end || !(number >= 0 && number <= 100)) {
    snprintf(err, err_size,
             "%s: metadata 'test_accuracy': expected a percentage from 0 to "
             "100, found '%.40s'",
             path, value);
    return -1;
  }
  *out = number;
  return 0;
}

/* The names a text entry may hold ("" absent), NULL-terminated. */
typedef struct name_rule {
  const char *key;
  size_t offset; /* of the text in mlp_checkpoint_meta */
  const char *names[7];
} name_rule;

static const name_rule name_rules[] = {
    {"activation",
     offsetof(mlp_checkpoint_meta, activation),
     {"relu", "gelu", NULL}},
    {"precision",
     offsetof(mlp_checkpoint_meta, precision),
     {"fp32", "tf32", "bf16", "fp16", "fp8", NULL}},
    {"mode",
     offsetof(mlp_checkpoint_meta, mode),
     {"fused", "unfused", "auto", NULL}},
    {"pad_to",
     offsetof(mlp_checkpoint_meta, pad_to),
     {"none", "8", "16", "32", NULL}},
    {"schedule",
     offsetof(mlp_checkpoint_meta, schedule),
     {"cosine", "constant", NULL}},
    {"order", offsetof(mlp_checkpoint_meta, order), {"shuffle", "file", NULL}},
};

/* Every entry of name_rules holds one of its names, or is absent. */
static int check_names(const mlp_checkpoint_meta *meta, const char *path,
                       char *err, size_t err_size) {
  for (size_t r = 0; r < sizeof name_rules / sizeof name_rules[0]; r++) {
    const name_rule *rule = &name_rules[r];
    const char *value = (const char *)meta + rule->offset;
    int known = !value[0];
    char expected[96] = "";
    size_t at = 0;
    for (int n = 0; rule->names[n]; n++) {
      known = known || strcmp(value, rule->names[n]) == 0;
      at += (size_t)snprintf(expected + at, sizeof expected - at, "%s'%s'",
                             n == 0               ? ""
                             : rule->names[n + 1] ? ", "
                                                  : " or ",
                             rule->names[n]);
    }
    if (known) continue;
    snprintf(err, err_size, "%s: metadata '%s': expected %s, found '%.40s'",
             path, rule->key, expected, value);
    return -1;
  }
  return 0;
}

/* The number `text` ("" absent) of entry `key`: finite and normal as a
 * float, > 0 (`low_closed` 0) or >= 0 (1), below 1 when `below_one`. */
static int check_number(const char *text, const char *key, int low_closed,
                        int below_one, const char *path, char *err,
                        size_t err_size) {
  if (!text[0]) return 0;
  char *end = NULL;
  errno = 0;
  double wide = strtod(text, &end);
  float value = (float)wide;
  int ok = end != text && !*end && errno == 0 && isfinite(value) &&
           (value == 0.0f ? wide == 0.0 && low_closed : isnormal(value)) &&
           (low_closed ? value >= 0.0f : value > 0.0f) &&
           (!below_one || value < 1.0f);
  if (ok) return 0;
  snprintf(err, err_size,
           "%s: metadata '%s': expected a number %s 0%s, finite as a float, "
           "found '%.40s'",
           path, key, low_closed ? ">=" : ">", below_one ? " and < 1" : "",
           text);
  return -1;
}

int mlp_checkpoint_meta_read(mlp_checkpoint_meta *out,
                             const safetensors_file *file, const char *path,
                             char *err, size_t err_size) {
  mlp_checkpoint_meta_init(out);
  if (read_text(out->format, file, "format", path, err, err_size) != 0)
    return -1;
  if (out->format[0] && strcmp(out->format, MLP_CHECKPOINT_FORMAT) != 0) {
    snprintf(err, err_size,
             "%s: metadata 'format': expected '%s', found '%.60s' (another "
             "program's file, or another version's)",
             path, MLP_CHECKPOINT_FORMAT, out->format);
    return -1;
  }
  if (read_text(out->widths, file, "widths", path, err, err_size) != 0 ||
      read_text(out->activation, file, "activation", path, err, err_size) ||
      read_text(out->precision, file, "precision", path, err, err_size) ||
      read_text(out->version, file, "version", path, err, err_size) ||
      read_text(out->lr, file, "lr", path, err, err_size) ||
      read_text(out->momentum, file, "momentum", path, err, err_size) ||
      read_text(out->schedule, file, "schedule", path, err, err_size) ||
      read_text(out->order, file, "order", path, err, err_size) ||
      read_text(out->steps, file, "steps", path, err, err_size) ||
      read_text(out->pixel_scale, file, "pixel_scale", path, err, err_size) ||
      read_text(out->pixel_shift, file, "pixel_shift", path, err, err_size) ||
      read_text(out->mode, file, "mode", path, err, err_size) ||
      read_text(out->pad_to, file, "pad_to", path, err, err_size) ||
      read_text(out->fp8_format, file, "fp8_format", path, err, err_size) ||
      read_text(out->fp8_scaling, file, "fp8_scaling", path, err, err_size) ||
      read_text(out->fp8_fast_accum, file, "fp8_fast_accum", path, err,
                err_size))
    return -1;
  if (check_names(out, path, err, err_size) != 0 ||
      check_number(out->lr, "lr", 0, 0, path, err, err_size) != 0 ||
      check_number(out->momentum, "momentum", 1, 1, path, err, err_size) != 0)
    return -1;
  unsigned long long number = 0;
  int found = 0;
  if (read_integer(&number, &found, file, "epochs", 0, INT_MAX, path, err,
                   err_size) != 0)
    return -1;
  if (found) out->epochs = (int)number;
  found = 0;
  if (read_integer(&number, &found, file, "schedule_epochs", 0, INT_MAX, path,
                   err, err_size) != 0)
    return -1;
  if (found) out->schedule_epochs = (int)number;
  found = 0;
  if (read_integer(&number, &found, file, "steps", 0, INT_MAX, path, err,
                   err_size) != 0)
    return -1;
  found = 0;
  if (read_integer(&number, &found, file, "batch", 1, INT_MAX, path, err,
                   err_size) != 0)
    return -1;
  if (found) out->batch = (int)number;
  if (read_integer(&out->seed, &out->has_seed, file, "seed", 0, ULLONG_MAX,
                   path, err, err_size) != 0)
    return -1;
  return read_accuracy(&out->test_accuracy, file, path, err, err_size);
}
