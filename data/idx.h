/* idx.h: a general reader for the idx file format (LeCun's MNIST container).
 *
 * Owns: the in-memory form of one idx file (type, dims, raw element bytes).
 * The error record every loader in data/ fills is idx_error.h's. Files may be
 * gzipped or raw; gzip is detected from the content (its 1f 8b magic), not the
 * name (idx_source.h reads the bytes).
 *
 * Layout of a file: two zero bytes, a type code, the number of dims, then
 * one big-endian uint32 per dim, then the elements, row-major, big-endian.
 */
#ifndef MNIST_EPILOGS_IDX_H
#define MNIST_EPILOGS_IDX_H

#include <stddef.h>
#include <stdint.h>

#include "data/idx_error.h"

#define IDX_MAX_DIMS 8
/* Largest payload we accept: 1 GiB. MNIST's largest file is 47 MB. */
#define IDX_MAX_BYTES ((uint64_t)1 << 30)

enum idx_type {
  IDX_TYPE_U8 = 0x08,
  IDX_TYPE_I8 = 0x09,
  IDX_TYPE_I16 = 0x0B,
  IDX_TYPE_I32 = 0x0C,
  IDX_TYPE_F32 = 0x0D,
  IDX_TYPE_F64 = 0x0E
};

typedef struct idx_array {
  enum idx_type type;
  int rank;
  uint32_t dims[IDX_MAX_DIMS];
  size_t count;        /* product of dims */
  size_t element_size; /* bytes per element */
  uint8_t *data;       /* count * element_size bytes, big-endian as stored */
} idx_array;

/* A check on a file's header, run before any payload is read or allocated:
 * `header` has type, rank, dims, count and element_size set and data NULL.
 * Returns IDX_OK, or fills `err` (naming `path`) and returns its status. */
typedef enum idx_status (*idx_check_fn)(const idx_array *header,
                                        const char *path, void *arg,
                                        idx_error *err);

/* Reads `path` (gzip or raw) into `out`. Returns IDX_OK, or an error code
 * with `err` filled and `out` left empty (nothing to free).
 * Memory: a raw file's payload is allocated once, after the file's size has
 * matched the header. A gzip payload grows as bytes arrive, each time by
 * max(1 MiB, a quarter of what has arrived), so the buffer never exceeds
 * 1.25 x the bytes delivered + 1 MiB, whatever the header claims (besides a
 * 64 KiB input buffer and zlib's state; realloc may briefly hold the old
 * buffer too where it cannot grow in place). */
enum idx_status idx_read(idx_array *out, const char *path, idx_error *err);

/* idx_read, with `check(header, path, check_arg, err)` run on the header
 * before any payload is read; its error is returned as is. It also runs on
 * a header whose sizes claim too much (count and element_size 0), and its
 * error wins there (a wrong rank byte is the cause). NULL `check`: plain
 * idx_read. */
enum idx_status idx_read_checked(idx_array *out, const char *path,
                                 idx_check_fn check, void *check_arg,
                                 idx_error *err);

/* Frees what idx_read allocated; a no-op on an empty or NULL array. */
void idx_array_destroy(idx_array *array);

/* Size in bytes of one element of a type code, 0 when the code is unknown. */
size_t idx_type_size(int type_code);

#endif
