/* idx_source.h: the bytes of one file, raw or gzip-decompressed, for the idx
 * reader.
 *
 * Owns: the open file, a 64 KiB input buffer and, for gzip, zlib's inflate
 * state. gzip is recognised by content (a file starting with 1f 8b), never by
 * name. A gzip file may hold several members one after the other (legal
 * gzip, read on as gunzip does); any other byte after the end of the last
 * member is an error (IDX_ERR_TRAILING), as trailing bytes in a raw file are.
 */
#ifndef MNIST_EPILOGS_IDX_SOURCE_H
#define MNIST_EPILOGS_IDX_SOURCE_H

#include <stddef.h>
#include <stdint.h>

#include "data/idx_error.h"

typedef struct idx_source idx_source;

/* Opens `path` (a regular, non-empty file) and looks at its first bytes to
 * tell gzip from raw. Returns IDX_OK with *out set, or an error (missing,
 * unreadable, a directory or other non-regular file, empty) with *out NULL.
 * `path` is borrowed: it must outlive the source. */
enum idx_status idx_source_create(idx_source **out, const char *path,
                                  idx_error *err);

/* Reads up to `size` bytes (decompressed for gzip) into `buffer`; *got =
 * bytes read, fewer than `size` only at the end of the data. Returns IDX_OK,
 * or IDX_ERR_GZIP (damaged or cut gzip), IDX_ERR_TRAILING (bytes after the
 * end of the gzip stream), IDX_ERR_OPEN (I/O error), IDX_ERR_NOMEM. */
enum idx_status idx_source_read(idx_source *source, void *buffer, size_t size,
                                size_t *got, idx_error *err);

/* 1 when the file is gzip (it starts with 1f 8b), 0 when raw. */
int idx_source_is_gzip(const idx_source *source);

/* The size of the file on disk in bytes (compressed size for gzip). */
uint64_t idx_source_file_size(const idx_source *source);

/* Closes the file and frees the source; a no-op on NULL. */
void idx_source_destroy(idx_source *source);

#endif
