/* safetensors_header.h: the checks on a safetensors file's JSON header
 * (private to checkpoint/): each entry's dtype, shape and data offsets, the
 * metadata, and that the tensors tile the data area exactly. Used by
 * safetensors_read.c; the header's strings stay in the cJSON tree. */
#ifndef MNIST_EPILOGS_SAFETENSORS_HEADER_H
#define MNIST_EPILOGS_SAFETENSORS_HEADER_H

#include <cjson/cJSON.h>
#include <stdint.h>

#include "checkpoint/safetensors.h"

typedef struct safetensors_header {
  int count;                   /* tensors */
  safetensors_tensor *tensors; /* [count] by data offset; data NULL */
  uint64_t *begins;            /* [count] their first byte in the data area */
  int meta_count;
  safetensors_pair *meta; /* [meta_count], in the header's order */
} safetensors_header;

/* Checks the parsed header `root` of `path`, whose data area holds
 * `data_bytes` bytes, and fills *out (names point into `root`). Returns 0,
 * or -1 with `err` "PATH: expected ..., found ..." and *out empty. */
int safetensors_header_check(safetensors_header *out, const cJSON *root,
                             uint64_t data_bytes, const char *path, char *err,
                             size_t err_size);
/* Frees the arrays; a no-op on an empty header. */
void safetensors_header_destroy(safetensors_header *header);

#endif
