/* safetensors_header.c: the checks on the JSON header
 * (safetensors_header.h). */
#include "checkpoint/safetensors_header.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Largest integer the header may hold: 2^53, exact in a double. */
#define MAX_JSON_INTEGER 9007199254740992.0

/* A tensor with its byte range, while sorting. */
typedef struct slot {
  safetensors_tensor tensor;
  uint64_t begin, end;
} slot;

/* What a JSON value is, for "found ..." */
static const char *kind_of(const cJSON *item) {
  if (!item) return "none";
  if (cJSON_IsString(item)) return "a string";
  if (cJSON_IsNumber(item)) return "a number";
  if (cJSON_IsArray(item)) return "an array";
  if (cJSON_IsObject(item)) return "an object";
  if (cJSON_IsBool(item)) return "a boolean";
  if (cJSON_IsNull(item)) return "null";
  return "something else";
}

/* A non-negative integer up to 2^53 into *out; -1 otherwise. */
static int json_count(const cJSON *item, uint64_t *out) {
  if (!cJSON_IsNumber(item)) return -1;
  double d = item->valuedouble;
  if (!(d >= 0 && d <= MAX_JSON_INTEGER)) return -1;
  *out = (uint64_t)d;
  return (double)*out == d ? 0 : -1;
}

/* An integer entry of an array, described for "found ...". */
static void describe_entry(char *out, size_t size, const cJSON *item) {
  if (cJSON_IsNumber(item))
    snprintf(out, size, "%.17g", item->valuedouble);
  else
    snprintf(out, size, "%s", kind_of(item));
}

/* The shape: an array of 1 or 2 non-negative integers. */
static int check_shape(safetensors_tensor *t, const cJSON *shape,
                       const char *path, char *err, size_t err_size) {
  if (!cJSON_IsArray(shape)) {
    snprintf(err, err_size,
             "%s: tensor '%.100s': expected a shape array, found %s", path,
             t->name, kind_of(shape));
    return -1;
  }
  int rank = cJSON_GetArraySize(shape);
  if (rank < 1 || rank > SAFETENSORS_MAX_RANK) {
    snprintf(err, err_size,
             "%s: tensor '%.100s': expected a shape of rank 1 or 2, found "
             "rank %d",
             path, t->name, rank);
    return -1;
  }
  t->rank = rank;
  t->count = 1;
  for (int d = 0; d < rank; d++) {
    const cJSON *dim = cJSON_GetArrayItem(shape, d);
    if (json_count(dim, &t->shape[d]) != 0) {
      char found[64];
      describe_entry(found, sizeof found, dim);
      snprintf(err, err_size,
               "%s: tensor '%.100s': expected shape entries that are "
               "non-negative integers, found %s",
               path, t->name, found);
      return -1;
    }
    /* Each dim <= 2^53, so the product is checked for 4 x it to fit. */
    if (t->shape[d] != 0 && t->count > (UINT64_MAX / 4) / t->shape[d]) {
      snprintf(err, err_size,
               "%s: tensor '%.100s': expected a shape whose size fits 64 "
               "bits, found an overflow",
               path, t->name);
      return -1;
    }
    t->count *= t->shape[d];
  }
  return 0;
}

/* data_offsets: [begin, end] with begin <= end <= data_bytes and 4 bytes
 * per element. */
static int check_offsets(slot *s, const cJSON *offsets, uint64_t data_bytes,
                         const char *path, char *err, size_t err_size) {
  const char *name = s->tensor.name;
  if (!cJSON_IsArray(offsets) || cJSON_GetArraySize(offsets) != 2 ||
      json_count(cJSON_GetArrayItem(offsets, 0), &s->begin) != 0 ||
      json_count(cJSON_GetArrayItem(offsets, 1), &s->end) != 0) {
    char found[160], first[64], second[64];
    if (cJSON_IsArray(offsets) && cJSON_GetArraySize(offsets) == 2) {
      describe_entry(first, sizeof first, cJSON_GetArrayItem(offsets, 0));
      describe_entry(second, sizeof second, cJSON_GetArrayItem(offsets, 1));
      snprintf(found, sizeof found, "[%s, %s]", first, second);
    } else if (cJSON_IsArray(offsets)) {
      snprintf(found, sizeof found, "an array of %d entries",
               cJSON_GetArraySize(offsets));
    } else {
      snprintf(found, sizeof found, "%s", kind_of(offsets));
    }
    snprintf(err, err_size,
             "%s: tensor '%.100s': expected data_offsets [begin, end] of two "
             "non-negative integers, found %s",
             path, name, found);
    return -1;
  }
  unsigned long long b = s->begin, e = s->end;
  if (b > e) {
    snprintf(err, err_size,
             "%s: tensor '%.100s': expected data_offsets with begin <= end, "
             "found [%llu, %llu]",
             path, name, b, e);
    return -1;
  }
  if (e > data_bytes) {
    snprintf(err, err_size,
             "%s: tensor '%.100s': expected data_offsets within the %llu-byte "
             "data area, found [%llu, %llu] (out of range)",
             path, name, (unsigned long long)data_bytes, b, e);
    return -1;
  }
  if (e - b != 4 * s->tensor.count) {
    snprintf(err, err_size,
             "%s: tensor '%.100s': expected data_offsets spanning 4 x %llu "
             "elements = %llu bytes, found %llu bytes",
             path, name, (unsigned long long)s->tensor.count,
             4 * (unsigned long long)s->tensor.count, e - b);
    return -1;
  }
  return 0;
}

static int check_entry(slot *s, const cJSON *entry, uint64_t data_bytes,
                       const char *path, char *err, size_t err_size) {
  const char *name = s->tensor.name;
  if (!cJSON_IsObject(entry)) {
    snprintf(err, err_size, "%s: tensor '%.100s': expected an object, found %s",
             path, name, kind_of(entry));
    return -1;
  }
  const cJSON *dtype = cJSON_GetObjectItemCaseSensitive(entry, "dtype");
  if (!cJSON_IsString(dtype) || strcmp(dtype->valuestring, "F32") != 0) {
    snprintf(err, err_size,
             "%s: tensor '%.100s': expected dtype F32, found %.40s", path, name,
             cJSON_IsString(dtype) ? dtype->valuestring : kind_of(dtype));
    return -1;
  }
  if (check_shape(&s->tensor, cJSON_GetObjectItemCaseSensitive(entry, "shape"),
                  path, err, err_size) != 0)
    return -1;
  return check_offsets(s,
                       cJSON_GetObjectItemCaseSensitive(entry, "data_offsets"),
                       data_bytes, path, err, err_size);
}

static int check_meta(safetensors_header *out, const cJSON *meta,
                      const char *path, char *err, size_t err_size) {
  if (!cJSON_IsObject(meta)) {
    snprintf(err, err_size,
             "%s: expected __metadata__ to be an object, found %s", path,
             kind_of(meta));
    return -1;
  }
  int count = cJSON_GetArraySize(meta);
  out->meta = calloc(count ? (size_t)count : 1, sizeof *out->meta);
  if (!out->meta) {
    snprintf(err, err_size, "%s: out of host memory for the metadata", path);
    return -1;
  }
  const cJSON *item;
  cJSON_ArrayForEach(item, meta) {
    if (!cJSON_IsString(item)) {
      snprintf(err, err_size,
               "%s: __metadata__ '%.100s': expected a string value, found %s",
               path, item->string, kind_of(item));
      return -1;
    }
    out->meta[out->meta_count].key = item->string;
    out->meta[out->meta_count++].value = item->valuestring;
  }
  return 0;
}

static int by_name(const void *a, const void *b) {
  return strcmp(((const slot *)a)->tensor.name, ((const slot *)b)->tensor.name);
}

static int by_offset(const void *a, const void *b) {
  const slot *x = a, *y = b;
  if (x->begin != y->begin) return x->begin < y->begin ? -1 : 1;
  return x->end < y->end ? -1 : x->end > y->end;
}

/* Unique names; the sorted slots tile [0, data_bytes) exactly. */
static int check_tiling(slot *slots, int count, uint64_t data_bytes,
                        const char *path, char *err, size_t err_size) {
  qsort(slots, (size_t)count, sizeof *slots, by_name);
  for (int t = 1; t < count; t++)
    if (strcmp(slots[t - 1].tensor.name, slots[t].tensor.name) == 0) {
      snprintf(err, err_size,
               "%s: expected unique tensor names, found '%.100s' twice", path,
               slots[t].tensor.name);
      return -1;
    }
  qsort(slots, (size_t)count, sizeof *slots, by_offset);
  uint64_t at = 0;
  for (int t = 0; t < count; t++) {
    unsigned long long b = slots[t].begin, want = at;
    const char *prev = t ? slots[t - 1].tensor.name : NULL;
    if (b != at) {
      snprintf(err, err_size,
               "%s: tensor '%.100s': expected data_offsets beginning at %llu "
               "(%s%.100s%s), found %llu: %s %llu bytes",
               path, slots[t].tensor.name, want,
               prev ? "where '" : "the start of the data area",
               prev ? prev : "", prev ? "' ends" : "", b,
               b < at ? "overlapping by" : "a gap of",
               b < at ? want - b : b - want);
      return -1;
    }
    at = slots[t].end;
  }
  if (at != data_bytes) {
    snprintf(err, err_size,
             "%s: expected the tensors to fill the %llu-byte data area, found "
             "%llu trailing bytes after the last tensor",
             path, (unsigned long long)data_bytes,
             (unsigned long long)(data_bytes - at));
    return -1;
  }
  return 0;
}

int safetensors_header_check(safetensors_header *out, const cJSON *root,
                             uint64_t data_bytes, const char *path, char *err,
                             size_t err_size) {
  memset(out, 0, sizeof *out);
  if (!cJSON_IsObject(root)) {
    snprintf(err, err_size,
             "%s: expected the header to be a JSON object, found %s", path,
             kind_of(root));
    return -1;
  }
  int entries = cJSON_GetArraySize(root), count = 0, metas = 0;
  slot *slots = calloc(entries ? (size_t)entries : 1, sizeof *slots);
  if (!slots) {
    snprintf(err, err_size, "%s: out of host memory for %d header entries",
             path, entries);
    return -1;
  }
  const cJSON *item;
  cJSON_ArrayForEach(item, root) {
    if (strcmp(item->string, "__metadata__") == 0) {
      if (metas++ > 0) {
        snprintf(err, err_size,
                 "%s: expected one __metadata__ object, found two", path);
        goto fail;
      }
      if (check_meta(out, item, path, err, err_size) != 0) goto fail;
      continue;
    }
    slots[count].tensor.name = item->string;
    if (check_entry(&slots[count], item, data_bytes, path, err, err_size))
      goto fail;
    count++;
  }
  if (check_tiling(slots, count, data_bytes, path, err, err_size) != 0)
    goto fail;
  out->tensors = calloc(count ? (size_t)count : 1, sizeof *out->tensors);
  out->begins = calloc(count ? (size_t)count : 1, sizeof *out->begins);
  if (!out->tensors || !out->begins) {
    snprintf(err, err_size, "%s: out of host memory for %d tensors", path,
             count);
    goto fail;
  }
  for (int t = 0; t < count; t++) {
    out->tensors[t] = slots[t].tensor;
    out->begins[t] = slots[t].begin;
  }
  out->count = count;
  free(slots);
  return 0;
fail:
  free(slots);
  safetensors_header_destroy(out);
  return -1;
}

void safetensors_header_destroy(safetensors_header *header) {
  free(header->tensors);
  free(header->begins);
  free(header->meta);
  memset(header, 0, sizeof *header);
}
