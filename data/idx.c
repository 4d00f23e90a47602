/* idx.c: parses idx files, validating everything the header claims against
 * what the file delivers (the bytes come from idx_source.c, raw or gzip).
 * See idx.h for the format. */
#include "data/idx.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/idx_source.h"

enum { IDX_READ_CHUNK = 1 << 20 };

size_t idx_type_size(int type_code) {
  switch (type_code) {
  case IDX_TYPE_U8:
  case IDX_TYPE_I8: return 1;
  case IDX_TYPE_I16: return 2;
  case IDX_TYPE_I32:
  case IDX_TYPE_F32: return 4;
  case IDX_TYPE_F64: return 8;
  default: return 0;
  }
}

void idx_array_destroy(idx_array *array) {
  if (!array) return;
  free(array->data);
  memset(array, 0, sizeof *array);
}

/* Parses magic, type and dims from `source` into `out` (no payload yet). */
static enum idx_status read_header(idx_array *out, idx_source *source,
                                   const char *path, size_t *header_bytes,
                                   idx_error *err) {
  uint8_t magic[4];
  size_t got = 0;
  enum idx_status status =
      idx_source_read(source, magic, sizeof magic, &got, err);
  if (status != IDX_OK) return status;
  if (got < 4)
    return idx_fail(err, IDX_ERR_HEADER,
                    "%s: expected a 4-byte idx magic, found only %zu "
                    "byte(s); hint: truncated download?",
                    path, got);
  if (magic[0] != 0 || magic[1] != 0) {
    const char *hint = magic[0] == '<' ? "a web page instead of data? "
                                         "the download may have failed"
                                       : "not an idx file?";
    return idx_fail(err, IDX_ERR_HEADER,
                    "%s: expected idx magic 00 00 <type> <rank>, found "
                    "%02x %02x %02x %02x; hint: %s",
                    path, magic[0], magic[1], magic[2], magic[3], hint);
  }
  size_t element_size = idx_type_size(magic[2]);
  if (element_size == 0)
    return idx_fail(err, IDX_ERR_TYPE,
                    "%s: expected an idx type code 0x08, 0x09, 0x0b, 0x0c, "
                    "0x0d or 0x0e, found 0x%02x",
                    path, magic[2]);
  int rank = magic[3];
  if (rank < 1 || rank > IDX_MAX_DIMS)
    return idx_fail(err, IDX_ERR_RANK,
                    "%s: expected 1 to %d dimensions, found %d", path,
                    IDX_MAX_DIMS, rank);
  uint8_t dims[4 * IDX_MAX_DIMS];
  status = idx_source_read(source, dims, 4 * (size_t)rank, &got, err);
  if (status != IDX_OK) return status;
  if (got != 4 * (size_t)rank)
    return idx_fail(err, IDX_ERR_HEADER,
                    "%s: expected %d bytes of dimension sizes, found %zu; "
                    "hint: truncated download?",
                    path, 4 * rank, got);
  /* Type, rank and every dim are set even when the sizes claim too much,
   * so that the caller's check can name a wrong kind of file first. */
  out->type = (enum idx_type)magic[2];
  out->rank = rank;
  for (int d = 0; d < rank; d++) {
    const uint8_t *p = dims + 4 * d;
    out->dims[d] = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
                   (uint32_t)p[2] << 8 | (uint32_t)p[3];
  }
  uint64_t bytes = element_size;
  size_t count = 1;
  for (int d = 0; d < rank; d++) {
    /* Dims are < 2^32 and bytes stays <= 2^30 before each multiply, so the
     * 64-bit product cannot overflow before the check below catches it. */
    bytes *= out->dims[d];
    count *= out->dims[d];
    if (bytes > IDX_MAX_BYTES)
      return idx_fail(err, IDX_ERR_SIZE,
                      "%s: expected at most %llu bytes of data, found a "
                      "header whose sizes claim more (dim %d = %u); hint: "
                      "corrupt header?",
                      path, (unsigned long long)IDX_MAX_BYTES, d, out->dims[d]);
  }
  out->count = count;
  out->element_size = element_size;
  *header_bytes = 4 + 4 * (size_t)rank;
  return IDX_OK;
}

/* Reads the payload. A raw file's size has confirmed the header: one
 * allocation. gzip: the buffer grows only as bytes arrive, by max(1 MiB,
 * got / 4), never past the claim (the bound idx.h states). */
static enum idx_status read_payload(idx_array *out, idx_source *source,
                                    const char *path, idx_error *err) {
  size_t want = out->count * out->element_size;
  size_t capacity = 0, got = 0;
  uint8_t *buffer = NULL;
  enum idx_status status = IDX_OK;
  while (got < want) {
    if (got == capacity) {
      size_t grow = got / 4 > IDX_READ_CHUNK ? got / 4 : IDX_READ_CHUNK;
      size_t next = want - got > grow ? got + grow : want;
      if (!idx_source_is_gzip(source)) next = want;
      uint8_t *bigger = realloc(buffer, next);
      if (!bigger) {
        status = idx_fail(err, IDX_ERR_NOMEM,
                          "%s: out of memory reading %zu bytes", path, next);
        break;
      }
      buffer = bigger;
      capacity = next;
    }
    size_t n = 0;
    status = idx_source_read(source, buffer + got, capacity - got, &n, err);
    if (status != IDX_OK) break;
    got += n;
    if (got < capacity) break; /* the end of the data */
  }
  if (status == IDX_OK && got < want)
    status = idx_fail(err, IDX_ERR_TRUNCATED,
                      "%s: expected %zu bytes of data after the header, "
                      "found %zu; hint: truncated download?",
                      path, want, got);
  if (status == IDX_OK) {
    /* Reading on also checks the gzip trailer and what follows it. */
    uint8_t extra[64];
    size_t more = 0;
    status = idx_source_read(source, extra, sizeof extra, &more, err);
    if (status == IDX_OK && more != 0)
      status = idx_fail(err, IDX_ERR_TRAILING,
                        "%s: expected exactly %zu bytes of data, found more "
                        "(trailing bytes); hint: two files concatenated?",
                        path, want);
  }
  if (status != IDX_OK) {
    free(buffer);
    return status;
  }
  out->data = buffer;
  return IDX_OK;
}

enum idx_status idx_read_checked(idx_array *out, const char *path,
                                 idx_check_fn check, void *check_arg,
                                 idx_error *err) {
  memset(out, 0, sizeof *out);
  if (err) {
    err->status = IDX_OK;
    err->message[0] = '\0';
  }
  idx_source *source = NULL;
  enum idx_status status = idx_source_create(&source, path, err);
  if (status != IDX_OK) return status;
  size_t header_bytes = 0;
  status = read_header(out, source, path, &header_bytes, err);
  /* Sizes that claim too much may come from the wrong kind of file (a rank
   * byte off shifts data into the dims): the check names that first. */
  if (check && (status == IDX_OK || status == IDX_ERR_SIZE)) {
    enum idx_status kind = check(out, path, check_arg, err);
    if (kind != IDX_OK) status = kind;
  }
  if (status == IDX_OK && !idx_source_is_gzip(source)) {
    /* Raw file: its size must match the header before anything is
     * allocated. */
    uint64_t expected = header_bytes + (uint64_t)out->count * out->element_size;
    uint64_t file_size = idx_source_file_size(source);
    if (file_size < expected)
      status = idx_fail(err, IDX_ERR_TRUNCATED,
                        "%s: expected %llu bytes (header says %zu elements), "
                        "found a %llu-byte file; hint: truncated download?",
                        path, (unsigned long long)expected, out->count,
                        (unsigned long long)file_size);
    else if (file_size > expected)
      status = idx_fail(err, IDX_ERR_TRAILING,
                        "%s: expected %llu bytes, found a %llu-byte file "
                        "(trailing bytes); hint: two files concatenated?",
                        path, (unsigned long long)expected,
                        (unsigned long long)file_size);
  }
  if (status == IDX_OK) status = read_payload(out, source, path, err);
  idx_source_destroy(source);
  if (status != IDX_OK) {
    idx_array_destroy(out);
    return status;
  }
  return IDX_OK;
}

enum idx_status idx_read(idx_array *out, const char *path, idx_error *err) {
  return idx_read_checked(out, path, NULL, NULL, err);
}
