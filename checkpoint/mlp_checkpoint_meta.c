/* mlp_checkpoint_meta.c: the checkpoint's metadata
 * (mlp_checkpoint_meta.h). */
#include "checkpoint/mlp_checkpoint_meta.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void mlp_checkpoint_meta_init(mlp_checkpoint_meta *meta) {
  memset(meta, 0, sizeof *meta);
  meta->epochs = -1;
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
  if (out->activation[0] && strcmp(out->activation, "relu") != 0 &&
      strcmp(out->activation, "gelu") != 0) {
    snprintf(err, err_size,
             "%s: metadata 'activation': expected 'relu' or 'gelu', found "
             "'%.40s'",
             path, out->activation);
    return -1;
  }
  unsigned long long number = 0;
  int found = 0;
  if (read_integer(&number, &found, file, "epochs", 0, INT_MAX, path, err,
                   err_size) != 0)
    return -1;
  if (found) out->epochs = (int)number;
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
