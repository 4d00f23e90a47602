/* safetensors.h: the safetensors file format, F32 tensors only. Plain C.
 *
 * Layout of a file: an 8-byte little-endian header length N, then N bytes
 * of JSON: an object mapping each tensor's name to {"dtype": "F32",
 * "shape": [...], "data_offsets": [begin, end]} (byte offsets into the data
 * area), plus an optional "__metadata__" object of string -> string; then
 * the data area, each tensor row-major, little-endian, the tensors tiling
 * it exactly (no gap, no overlap, nothing after the last).
 *
 * Owns: the writer (atomic: a temporary beside the target, renamed over it)
 * and the reader, which treats every file as hostile and refuses anything
 * the format does not allow with "FILE: expected ..., found ...".
 */
#ifndef MNIST_EPILOGS_SAFETENSORS_H
#define MNIST_EPILOGS_SAFETENSORS_H

#include <stddef.h>
#include <stdint.h>

/* Largest file the reader takes: 4 GiB. */
#define SAFETENSORS_MAX_FILE_BYTES ((uint64_t)4 << 30)
/* Largest JSON header the reader takes: 100 MB (the reference's limit). */
#define SAFETENSORS_MAX_HEADER_BYTES ((uint64_t)100000000)
/* Ranks the reader and writer take: 1 and 2. */
#define SAFETENSORS_MAX_RANK 2

/* One tensor for the writer. */
typedef struct safetensors_entry {
  const char *name;
  int rank;                             /* 1 or 2 */
  uint64_t shape[SAFETENSORS_MAX_RANK]; /* shape[0 .. rank-1] */
  const float *data;                    /* product(shape) floats, row-major */
} safetensors_entry;

/* One metadata pair, for the writer. */
typedef struct safetensors_pair {
  const char *key;
  const char *value;
} safetensors_pair;

/* Writes `count` tensors (data areas in that order) and `pair_count`
 * metadata pairs to `path`, the header padded with spaces to a multiple of
 * 8 bytes. Atomic, by write_target_commit: a symbolic link is written
 * through; a temporary beside the target, fsynced, renamed over it unless
 * it is now not a regular file. Returns 0, or -1 with `err` naming the
 * path and the reason; `path` is then as it was and no temporary is left. */
int safetensors_write(const char *path, const safetensors_entry *tensors,
                      int count, const safetensors_pair *pairs, int pair_count,
                      char *err, size_t err_size);

/* A tensor of a file read. */
typedef struct safetensors_tensor {
  const char *name;
  int rank;                             /* 1 or 2 */
  uint64_t shape[SAFETENSORS_MAX_RANK]; /* shape[0 .. rank-1] */
  uint64_t count;                       /* product(shape) */
  const float *data; /* [count] row-major, native byte order, aligned */
} safetensors_tensor;

typedef struct safetensors_file safetensors_file;

/* Reads and validates `path` into *out (NULL on failure). Returns 0, or -1
 * with `err` "PATH: expected ..., found ..." (naming the tensor where one
 * is at fault). The file's size is checked before anything is allocated. */
int safetensors_read(safetensors_file **out, const char *path, char *err,
                     size_t err_size);
/* Frees what safetensors_read made; a no-op on NULL. */
void safetensors_file_destroy(safetensors_file *file);

/* The number of tensors, and tensor `index` (0 .. count-1) in the order
 * of their data offsets. */
int safetensors_count(const safetensors_file *file);
const safetensors_tensor *safetensors_at(const safetensors_file *file,
                                         int index);
/* The tensor named `name`, or NULL. */
const safetensors_tensor *safetensors_find(const safetensors_file *file,
                                           const char *name);

/* The number of metadata pairs, pair `index`, and the value of `key` (NULL
 * when absent). The strings live as long as the file. */
int safetensors_meta_count(const safetensors_file *file);
safetensors_pair safetensors_meta_at(const safetensors_file *file, int index);
const char *safetensors_meta(const safetensors_file *file, const char *key);

#endif
