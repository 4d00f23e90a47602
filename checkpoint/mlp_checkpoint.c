/* mlp_checkpoint.c: the MLP's parameters to and from safetensors
 * (mlp_checkpoint.h). */
#include "checkpoint/mlp_checkpoint.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint/safetensors.h"
#include "lt/lt_shape.h"

void mlp_checkpoint_widths_text(char *out, size_t size, const int *widths,
                                int depth) {
  size_t at = 0;
  if (size) out[0] = '\0';
  for (int l = 0; l <= depth && at < size; l++)
    at += (size_t)snprintf(out + at, size - at, l ? "-%d" : "%d", widths[l]);
}

/* "(out, in)" or "(out)": a tensor's shape for messages. */
static void shape_text(char *out, size_t size, const safetensors_tensor *t) {
  if (t->rank == 1)
    snprintf(out, size, "(%llu)", (unsigned long long)t->shape[0]);
  else
    snprintf(out, size, "(%llu, %llu)", (unsigned long long)t->shape[0],
             (unsigned long long)t->shape[1]);
}

/* "0.weight", "0.bias", "2.weight", ...: layer l is module 2l. */
static void tensor_name(char *out, size_t size, int layer, int bias) {
  snprintf(out, size, "%d.%s", 2 * layer, bias ? "bias" : "weight");
}

int mlp_checkpoint_save(const char *path, const mlp_layout *layout,
                        const float *slab, const mlp_checkpoint_meta *meta,
                        char *err, size_t err_size) {
  if (layout->depth < 1 || layout->depth > MLP_MAX_LAYERS) {
    snprintf(err, err_size, "%s: expected 1 to %d layers, found %d", path,
             MLP_MAX_LAYERS, layout->depth);
    return -1;
  }
  float *packed = malloc(layout->param_count * sizeof *packed);
  if (!packed) {
    snprintf(err, err_size, "%s: out of host memory for %zu parameters", path,
             layout->param_count);
    return -1;
  }
  char names[2 * MLP_MAX_LAYERS][32];
  safetensors_entry entries[2 * MLP_MAX_LAYERS];
  size_t at = 0;
  for (int l = 0; l < layout->depth; l++) {
    size_t in = (size_t)layout->widths[l], out = (size_t)layout->widths[l + 1];
    size_t ld = (size_t)lt_ld((int)in);
    safetensors_entry *w = &entries[2 * l], *b = &entries[2 * l + 1];
    tensor_name(names[2 * l], sizeof names[0], l, 0);
    tensor_name(names[2 * l + 1], sizeof names[0], l, 1);
    *w = (safetensors_entry){names[2 * l], 2, {out, in}, packed + at};
    for (size_t o = 0; o < out; o++, at += in)
      memcpy(packed + at, slab + layout->w_offset[l] + o * ld,
             in * sizeof *packed);
    *b = (safetensors_entry){names[2 * l + 1], 1, {out, 0}, packed + at};
    memcpy(packed + at, slab + layout->b_offset[l], out * sizeof *packed);
    at += out;
  }
  for (int t = 0; t < 2 * layout->depth; t++) {
    const safetensors_entry *e = &entries[t];
    size_t count = e->rank == 2 ? e->shape[0] * e->shape[1] : e->shape[0];
    for (size_t i = 0; i < count; i++)
      if (!isfinite(e->data[i])) {
        snprintf(err, err_size,
                 "%s: tensor '%s': expected finite parameters, found %g at "
                 "index %zu (a diverged run?); nothing written",
                 path, e->name, e->data[i], i);
        free(packed);
        return -1;
      }
  }
  char widths[MLP_CHECKPOINT_TEXT];
  mlp_checkpoint_widths_text(widths, sizeof widths, layout->widths,
                             layout->depth);
  mlp_checkpoint_pairs pairs;
  mlp_checkpoint_pairs_fill(&pairs, meta, widths);
  int status = safetensors_write(path, entries, 2 * layout->depth, pairs.pairs,
                                 pairs.count, err, err_size);
  free(packed);
  return status;
}

/* Whether layer l's weights w were stored (in, out): read that way round,
 * its bias b and its neighbours fit (the layer below's outputs, or for the
 * first layer the next layer's inputs), where read (out, in) they do not. */
static int weights_transposed(const safetensors_file *file, int l,
                              const safetensors_tensor *w,
                              const safetensors_tensor *b, const int *widths) {
  if (w->rank != 2 || b->rank != 1 || b->shape[0] != w->shape[1] ||
      w->shape[0] == w->shape[1])
    return 0;
  if (l > 0) return w->shape[0] == (uint64_t)widths[l];
  char next_name[32];
  tensor_name(next_name, sizeof next_name, l + 1, 0);
  const safetensors_tensor *next = safetensors_find(file, next_name);
  return next && next->rank == 2 && next->shape[1] == b->shape[0];
}

/* The layers' widths from the tensors' shapes into widths[0 .. *depth]:
 * "2l.weight" (out, in) and "2l.bias" (out) for l = 0, 1, ... until
 * "2l.weight" is missing, each in the previous one's out; then no other
 * tensor. */
static int find_widths(int *widths, int *depth, const safetensors_file *file,
                       const char *path, char *err, size_t err_size) {
  char name[32], bias_name[32];
  int l = 0;
  for (;; l++) {
    tensor_name(name, sizeof name, l, 0);
    tensor_name(bias_name, sizeof bias_name, l, 1);
    const safetensors_tensor *w = safetensors_find(file, name);
    const safetensors_tensor *b = safetensors_find(file, bias_name);
    if (!w && l > 0 && !b) break;
    if (l == MLP_MAX_LAYERS) {
      snprintf(err, err_size,
               "%s: expected at most %d layers, found tensor '%s' too", path,
               MLP_MAX_LAYERS, w ? name : bias_name);
      return -1;
    }
    if (!w || !b) {
      snprintf(err, err_size,
               "%s: expected tensor '%s' (layer %d's %s), found none", path,
               w ? bias_name : name, l, w ? "bias" : "weights");
      return -1;
    }
    char found[64];
    shape_text(found, sizeof found, w);
    if (w->rank != 2 || w->shape[0] < 1 || w->shape[0] > MLP_MAX_WIDTH ||
        w->shape[1] < 1 || w->shape[1] > MLP_MAX_WIDTH) {
      snprintf(err, err_size,
               "%s: tensor '%s': expected shape (out, in) with widths from 1 "
               "to %d, found %s",
               path, name, MLP_MAX_WIDTH, found);
      return -1;
    }
    if (weights_transposed(file, l, w, b, widths)) {
      snprintf(err, err_size,
               "%s: tensor '%s': expected shape (out, in) = (%llu, %llu) "
               "(its bias '%s' has %llu outputs), found %s; hint: stored "
               "transposed? (weights are W[out][in], as PyTorch's Linear)",
               path, name, (unsigned long long)w->shape[1],
               (unsigned long long)w->shape[0], bias_name,
               (unsigned long long)b->shape[0], found);
      return -1;
    }
    if (l > 0 && w->shape[1] != (uint64_t)widths[l]) {
      snprintf(err, err_size,
               "%s: tensor '%s': expected %d inputs (layer %d's outputs), "
               "found shape %s: the width chain is broken",
               path, name, widths[l], l - 1, found);
      return -1;
    }
    if (b->rank != 1 || b->shape[0] != w->shape[0]) {
      shape_text(found, sizeof found, b);
      snprintf(err, err_size,
               "%s: tensor '%s': expected shape (%llu) (the outputs of '%s'), "
               "found %s",
               path, bias_name, (unsigned long long)w->shape[0], name, found);
      return -1;
    }
    widths[l] = (int)w->shape[1];
    widths[l + 1] = (int)w->shape[0];
  }
  *depth = l;
  if (safetensors_count(file) == 2 * l) return 0;
  for (int t = 0; t < safetensors_count(file); t++) {
    const char *found = safetensors_at(file, t)->name;
    int known = 0;
    for (int k = 0; k < 2 * l && !known; k++) {
      tensor_name(name, sizeof name, k / 2, k % 2);
      known = strcmp(found, name) == 0;
    }
    if (!known) {
      snprintf(err, err_size,
               "%s: expected only tensors 0.weight .. %d.bias (modules 0, 2, "
               "4, ... with no gap), found unexpected tensor '%.100s'",
               path, 2 * (l - 1), found);
      return -1;
    }
  }
  return 0; /* not reached: the names are unique */
}

/* Copies tensor `name` (count floats, rows of `row` floats) to `to`, rows
 * `stride` apart, refusing non-finite values. */
static int copy_finite(float *to, size_t stride, const safetensors_file *file,
                       const char *name, size_t row, const char *path,
                       char *err, size_t err_size) {
  const safetensors_tensor *t = safetensors_find(file, name);
  for (size_t i = 0; i < t->count; i++) {
    if (!isfinite(t->data[i])) {
      snprintf(err, err_size,
               "%s: tensor '%s': expected finite values, found %g at index "
               "%zu (row %zu, column %zu)",
               path, name, t->data[i], i, i / row, i % row);
      return -1;
    }
    to[i / row * stride + i % row] = t->data[i];
  }
  return 0;
}

static int fill(mlp_checkpoint *out, const safetensors_file *file,
                const int *want_widths, int want_depth, const char *path,
                char *err, size_t err_size) {
  int widths[MLP_MAX_LAYERS + 1], depth = 0;
  if (mlp_checkpoint_meta_read(&out->meta, file, path, err, err_size) != 0 ||
      find_widths(widths, &depth, file, path, err, err_size) != 0)
    return -1;
  char found[MLP_CHECKPOINT_TEXT], want[MLP_CHECKPOINT_TEXT];
  mlp_checkpoint_widths_text(found, sizeof found, widths, depth);
  if (out->meta.widths[0] && strcmp(out->meta.widths, found) != 0) {
    snprintf(err, err_size,
             "%s: metadata 'widths': expected the tensors' widths %s, found "
             "'%s'",
             path, found, out->meta.widths);
    return -1;
  }
  if (want_widths) {
    int same = want_depth == depth;
    for (int l = 0; same && l <= depth; l++)
      same = want_widths[l] == widths[l];
    if (!same) {
      mlp_checkpoint_widths_text(want, sizeof want, want_widths, want_depth);
      snprintf(err, err_size,
               "%s: expected widths %s (the network asked for), found %s", path,
               want, found);
      return -1;
    }
  }
  char why[256];
  if (mlp_layout_init(&out->layout, widths, depth, why, sizeof why) != 0) {
    snprintf(err, err_size, "%s: %s", path, why);
    return -1;
  }
  out->slab = calloc(out->layout.slab_floats, sizeof *out->slab);
  if (!out->slab) {
    snprintf(err, err_size, "%s: out of host memory for %zu parameters", path,
             out->layout.slab_floats);
    return -1;
  }
  for (int l = 0; l < depth; l++) {
    char name[32];
    size_t in = (size_t)widths[l];
    tensor_name(name, sizeof name, l, 0);
    if (copy_finite(out->slab + out->layout.w_offset[l],
                    (size_t)lt_ld(widths[l]), file, name, in, path, err,
                    err_size) != 0)
      return -1;
    tensor_name(name, sizeof name, l, 1);
    size_t outs = (size_t)widths[l + 1];
    if (copy_finite(out->slab + out->layout.b_offset[l], outs, file, name, outs,
                    path, err, err_size) != 0)
      return -1;
  }
  return 0;
}

int mlp_checkpoint_load(const char *path, const int *want_widths,
                        int want_depth, mlp_checkpoint *out, char *err,
                        size_t err_size) {
  memset(out, 0, sizeof *out);
  if (want_widths && (want_depth < 1 || want_depth > MLP_MAX_LAYERS)) {
    snprintf(err, err_size, "%s: expected 1 to %d wanted layers, found %d",
             path, MLP_MAX_LAYERS, want_depth);
    return -1;
  }
  safetensors_file *file = NULL;
  if (safetensors_read(&file, path, err, err_size) != 0) return -1;
  int status = fill(out, file, want_widths, want_depth, path, err, err_size);
  safetensors_file_destroy(file);
  if (status != 0) {
    mlp_checkpoint_destroy(out);
    memset(out, 0, sizeof *out);
  }
  return status;
}

void mlp_checkpoint_destroy(mlp_checkpoint *checkpoint) {
  if (!checkpoint) return;
  free(checkpoint->slab);
  checkpoint->slab = NULL;
}
