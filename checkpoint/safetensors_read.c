/* safetensors_read.c: the safetensors reader, for hostile files
 * (safetensors.h). The JSON header's checks: safetensors_header.c. */
#include "checkpoint/file_kind.h"
#include "checkpoint/safetensors.h"
#include "checkpoint/safetensors_header.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct safetensors_file {
  cJSON *root; /* the parsed header: names and metadata point into it */
  safetensors_header header;
  float *data; /* the data area, [data_bytes / 4], native byte order */
};

/* Reads exactly `size` bytes; -1 on a short read. */
static int read_exact(FILE *file, void *bytes, size_t size) {
  return size == 0 || fread(bytes, 1, size, file) == size ? 0 : -1;
}

/* Opens `path` and checks that it is a regular file of 8 bytes to the size
 * limit: its size in *size. The open does not wait (O_NONBLOCK: a FIFO
 * would block a plain open until a writer came) and what was opened is
 * judged by fstat before a byte is read. NULL with `err` filled on
 * failure. */
static FILE *open_checked(const char *path, uint64_t *size, char *err,
                          size_t err_size) {
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    snprintf(err, err_size, "%s: expected a safetensors file, found none (%s)",
             path, strerror(errno));
    return NULL;
  }
  struct stat info;
  if (fstat(fd, &info) != 0) {
    snprintf(err, err_size, "%s: expected a file, found an error (%s)", path,
             strerror(errno));
    close(fd);
    return NULL;
  }
  *size = (uint64_t)info.st_size;
  FILE *file = NULL;
  if (!S_ISREG(info.st_mode)) {
    snprintf(err, err_size,
             "%s: expected a safetensors file (a regular file), found %s", path,
             file_kind_name(info.st_mode));
  } else if (*size < 8) {
    snprintf(err, err_size,
             "%s: expected at least 8 bytes (the header length), found %llu "
             "bytes (too short)",
             path, (unsigned long long)*size);
  } else if (*size > SAFETENSORS_MAX_FILE_BYTES) {
    snprintf(err, err_size,
             "%s: expected a file of at most 4 GiB, found %llu bytes", path,
             (unsigned long long)*size);
  } else if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0 ||
             !(file = fdopen(fd, "rb"))) {
    snprintf(err, err_size, "%s: expected a readable file, found an error (%s)",
             path, strerror(errno));
  } else {
    return file;
  }
  close(fd);
  return NULL;
}

/* Reads the 8-byte header length and checks it against the file's size
 * and the header limit. */
static int read_header_length(FILE *file, const char *path, uint64_t size,
                              uint64_t *length, char *err, size_t err_size) {
  unsigned char bytes[8];
  if (read_exact(file, bytes, 8) != 0) {
    snprintf(err, err_size,
             "%s: expected 8 bytes of header length, found a read error", path);
    return -1;
  }
  *length = 0;
  for (int b = 7; b >= 0; b--)
    *length = *length << 8 | bytes[b];
  if (*length < 2) {
    snprintf(err, err_size,
             "%s: expected a header length of at least 2 (a JSON object), "
             "found %llu",
             path, (unsigned long long)*length);
    return -1;
  }
  if (*length > size - 8) {
    snprintf(err, err_size,
             "%s: expected a header length of at most %llu (the file's size "
             "less 8), found %llu (truncated, or not a safetensors file)",
             path, (unsigned long long)(size - 8), (unsigned long long)*length);
    return -1;
  }
  if (*length > SAFETENSORS_MAX_HEADER_BYTES) {
    snprintf(err, err_size,
             "%s: expected a header length of at most %llu, found %llu", path,
             (unsigned long long)SAFETENSORS_MAX_HEADER_BYTES,
             (unsigned long long)*length);
    return -1;
  }
  return 0;
}

/* Parses the header's JSON; only whitespace may follow the object. */
static cJSON *parse_json(const char *text, size_t length, const char *path,
                         char *err, size_t err_size) {
  const char *end = NULL;
  cJSON *root = cJSON_ParseWithLengthOpts(text, length, &end, 0);
  size_t at = end && end >= text ? (size_t)(end - text) : 0;
  if (!root) {
    snprintf(err, err_size,
             "%s: expected a JSON header, found invalid JSON at header byte "
             "%zu",
             path, at);
    return NULL;
  }
  for (; at < length; at++) {
    char c = text[at];
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
      snprintf(err, err_size,
               "%s: expected only spaces after the JSON header, found byte "
               "0x%02x at header byte %zu",
               path, (unsigned)(unsigned char)c, at);
      cJSON_Delete(root);
      return NULL;
    }
  }
  return root;
}

/* The data area's little-endian floats, converted in place. */
static void decode_floats(float *data, uint64_t count) {
  unsigned char *bytes = (unsigned char *)data;
  for (uint64_t i = 0; i < count; i++) {
    const unsigned char *p = bytes + 4 * i;
    uint32_t bits = (uint32_t)p[0] | (uint32_t)p[1] << 8 |
                    (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    memcpy(&data[i], &bits, 4);
  }
}

int safetensors_read(safetensors_file **out, const char *path, char *err,
                     size_t err_size) {
  *out = NULL;
  uint64_t size = 0, length = 0;
  FILE *file = open_checked(path, &size, err, err_size);
  if (!file) return -1;
  if (read_header_length(file, path, size, &length, err, err_size) != 0) {
    fclose(file);
    return -1;
  }
  safetensors_file *st = calloc(1, sizeof *st);
  char *text = malloc((size_t)length);
  if (!st || !text) {
    snprintf(err, err_size, "%s: out of host memory for a %llu-byte header",
             path, (unsigned long long)length);
    goto fail;
  }
  if (read_exact(file, text, (size_t)length) != 0) {
    snprintf(err, err_size,
             "%s: expected %llu header bytes, found a short read (did the "
             "file change?)",
             path, (unsigned long long)length);
    goto fail;
  }
  st->root = parse_json(text, (size_t)length, path, err, err_size);
  free(text);
  text = NULL;
  uint64_t data_bytes = size - 8 - length;
  if (!st->root || safetensors_header_check(&st->header, st->root, data_bytes,
                                            path, err, err_size) != 0)
    goto fail;
  /* The tensors tile the data area, so it holds whole floats. */
  st->data = malloc(data_bytes ? (size_t)data_bytes : 4);
  if (!st->data) {
    snprintf(err, err_size, "%s: out of host memory for %llu data bytes", path,
             (unsigned long long)data_bytes);
    goto fail;
  }
  if (read_exact(file, st->data, (size_t)data_bytes) != 0) {
    snprintf(err, err_size,
             "%s: expected %llu data bytes, found a short read (did the file "
             "change?)",
             path, (unsigned long long)data_bytes);
    goto fail;
  }
  decode_floats(st->data, data_bytes / 4);
  for (int t = 0; t < st->header.count; t++) {
    safetensors_tensor *tensor = &st->header.tensors[t];
    tensor->data = st->data + st->header.begins[t] / 4;
  }
  fclose(file);
  *out = st;
  return 0;
fail:
  free(text);
  fclose(file);
  safetensors_file_destroy(st);
  return -1;
}

void safetensors_file_destroy(safetensors_file *file) {
  if (!file) return;
  safetensors_header_destroy(&file->header);
  cJSON_Delete(file->root);
  free(file->data);
  free(file);
}

int safetensors_count(const safetensors_file *file) {
  return file->header.count;
}

const safetensors_tensor *safetensors_at(const safetensors_file *file,
                                         int index) {
  if (index < 0 || index >= file->header.count) return NULL;
  return &file->header.tensors[index];
}

const safetensors_tensor *safetensors_find(const safetensors_file *file,
                                           const char *name) {
  for (int t = 0; t < file->header.count; t++)
    if (strcmp(file->header.tensors[t].name, name) == 0)
      return &file->header.tensors[t];
  return NULL;
}

int safetensors_meta_count(const safetensors_file *file) {
  return file->header.meta_count;
}

safetensors_pair safetensors_meta_at(const safetensors_file *file, int index) {
  safetensors_pair none = {NULL, NULL};
  if (index < 0 || index >= file->header.meta_count) return none;
  return file->header.meta[index];
}

const char *safetensors_meta(const safetensors_file *file, const char *key) {
  for (int p = 0; p < file->header.meta_count; p++)
    if (strcmp(file->header.meta[p].key, key) == 0)
      return file->header.meta[p].value;
  return NULL;
}
