/* safetensors_write.c: the safetensors writer, atomic (safetensors.h). */
#include "checkpoint/safetensors.h"
#include "checkpoint/write_target.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A temporary file being written; the first failure's errno is kept. */
typedef struct st_out {
  FILE *file;
  int err_no; /* 0 while every write succeeded */
} st_out;

static void out_bytes(st_out *out, const void *bytes, size_t size) {
  if (out->err_no || size == 0) return;
  errno = 0;
  if (fwrite(bytes, 1, size, out->file) != size)
    out->err_no = errno ? errno : EIO;
}

/* `count` floats as little-endian bytes, through a small buffer. */
static void out_floats(st_out *out, const float *data, uint64_t count) {
  unsigned char chunk[16384];
  size_t used = 0;
  for (uint64_t i = 0; i < count; i++) {
    uint32_t bits;
    memcpy(&bits, &data[i], 4);
    for (int b = 0; b < 4; b++)
      chunk[used++] = (unsigned char)(bits >> (8 * b));
    if (used == sizeof chunk) {
      out_bytes(out, chunk, used);
      used = 0;
    }
  }
  out_bytes(out, chunk, used);
}

/* product(shape) * 4 into *bytes; -1 on overflow. */
static int entry_bytes(const safetensors_entry *e, uint64_t *bytes) {
  uint64_t n = 4;
  for (int d = 0; d < e->rank; d++) {
    if (e->shape[d] != 0 && n > UINT64_MAX / e->shape[d]) return -1;
    n *= e->shape[d];
  }
  *bytes = n;
  return 0;
}

static cJSON *raw_number(uint64_t value) {
  char text[32];
  snprintf(text, sizeof text, "%llu", (unsigned long long)value);
  return cJSON_CreateRaw(text);
}

/* The JSON header (malloc'd text), or NULL with `err` filled. */
static char *header_text(const char *path, const safetensors_entry *tensors,
                         int count, const safetensors_pair *pairs,
                         int pair_count, char *err, size_t err_size) {
  cJSON *root = cJSON_CreateObject();
  int ok = root != NULL;
  if (ok && pair_count > 0) {
    cJSON *meta = cJSON_AddObjectToObject(root, "__metadata__");
    ok = meta != NULL;
    for (int p = 0; ok && p < pair_count; p++)
      ok = cJSON_AddStringToObject(meta, pairs[p].key, pairs[p].value) != NULL;
  }
  uint64_t at = 0;
  for (int t = 0; ok && t < count; t++) {
    const safetensors_entry *e = &tensors[t];
    uint64_t bytes = 0;
    if (entry_bytes(e, &bytes) != 0 || at + bytes < at) {
      snprintf(err, err_size,
               "%s: tensor '%s': expected a size that fits 64 bits, found "
               "an overflow",
               path, e->name);
      cJSON_Delete(root);
      return NULL;
    }
    /* The reference's key order: dtype, shape, data_offsets. */
    cJSON *entry = cJSON_AddObjectToObject(root, e->name);
    ok = entry && cJSON_AddStringToObject(entry, "dtype", "F32");
    cJSON *shape = ok ? cJSON_AddArrayToObject(entry, "shape") : NULL;
    cJSON *offsets =
        shape ? cJSON_AddArrayToObject(entry, "data_offsets") : NULL;
    ok = offsets != NULL;
    for (int d = 0; ok && d < e->rank; d++)
      ok = cJSON_AddItemToArray(shape, raw_number(e->shape[d]));
    ok = ok && cJSON_AddItemToArray(offsets, raw_number(at)) &&
         cJSON_AddItemToArray(offsets, raw_number(at + bytes));
    at += bytes;
  }
  char *text = ok ? cJSON_PrintUnformatted(root) : NULL;
  cJSON_Delete(root);
  if (!text)
    snprintf(err, err_size, "%s: out of host memory building the header", path);
  return text;
}

/* Checks the writer's input: names, ranks, data. */
static int check_entries(const char *path, const safetensors_entry *tensors,
                         int count, const safetensors_pair *pairs,
                         int pair_count, char *err, size_t err_size) {
  for (int t = 0; t < count; t++) {
    const safetensors_entry *e = &tensors[t];
    if (!e->name || strcmp(e->name, "__metadata__") == 0) {
      snprintf(err, err_size,
               "%s: expected a tensor name other than __metadata__, found "
               "%s",
               path, e->name ? e->name : "none");
      return -1;
    }
    if (e->rank < 1 || e->rank > SAFETENSORS_MAX_RANK) {
      snprintf(err, err_size, "%s: tensor '%s': expected rank 1 or 2, found %d",
               path, e->name, e->rank);
      return -1;
    }
    uint64_t bytes = 0;
    if (entry_bytes(e, &bytes) == 0 && bytes > 0 && !e->data) {
      snprintf(err, err_size, "%s: tensor '%s': expected data, found NULL",
               path, e->name);
      return -1;
    }
    for (int u = 0; u < t; u++)
      if (strcmp(tensors[u].name, e->name) == 0) {
        snprintf(err, err_size,
                 "%s: expected unique tensor names, found '%s' twice", path,
                 e->name);
        return -1;
      }
  }
  for (int p = 0; p < pair_count; p++)
    if (!pairs[p].key || !pairs[p].value) {
      snprintf(err, err_size,
               "%s: expected metadata keys and values, found NULL at pair %d",
               path, p);
      return -1;
    }
  return 0;
}

/* What the file holds: the header (padded with spaces to `padded` bytes)
 * and the tensors' data. */
typedef struct st_content {
  const char *header;
  size_t length, padded;
  const safetensors_entry *tensors;
  int count;
} st_content;

/* write_target_writer: the whole file to `file`. */
static int write_content(FILE *file, void *arg) {
  const st_content *c = arg;
  st_out out = {file, 0};
  unsigned char size_bytes[8];
  for (int b = 0; b < 8; b++)
    size_bytes[b] = (unsigned char)((uint64_t)c->padded >> (8 * b));
  out_bytes(&out, size_bytes, 8);
  out_bytes(&out, c->header, c->length);
  out_bytes(&out, "       ", c->padded - c->length);
  for (int t = 0; t < c->count; t++) {
    uint64_t bytes = 0;
    entry_bytes(&c->tensors[t], &bytes);
    out_floats(&out, c->tensors[t].data, bytes / 4);
  }
  errno = out.err_no;
  return out.err_no ? -1 : 0;
}

int safetensors_write(const char *path, const safetensors_entry *tensors,
                      int count, const safetensors_pair *pairs, int pair_count,
                      char *err, size_t err_size) {
  if (check_entries(path, tensors, count, pairs, pair_count, err, err_size))
    return -1;
  char *header =
      header_text(path, tensors, count, pairs, pair_count, err, err_size);
  if (!header) return -1;
  size_t length = strlen(header);
  st_content content = {header, length, (length + 7) / 8 * 8, tensors, count};
  int status =
      write_target_commit(NULL, path, write_content, &content, err, err_size);
  free(header);
  return status;
}
