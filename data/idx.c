/* idx.c: reads idx files, gzipped or raw, validating everything the header
 * claims against what the file delivers. See idx.h for the format. */
#include "idx.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

enum { IDX_READ_CHUNK = 1 << 20 };

enum idx_status idx_fail(idx_error *err, enum idx_status status,
                         const char *format, ...) {
  if (err) {
    va_list args;
    va_start(args, format);
    vsnprintf(err->message, sizeof err->message, format, args);
    va_end(args);
    err->status = status;
  }
  return status;
}

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

/* Reads up to `want` bytes; returns the count read, or -1 on a stream error. */
static long long read_fully(gzFile file, void *buffer, size_t want) {
  size_t got = 0;
  while (got < want) {
    size_t ask = want - got;
    if (ask > IDX_READ_CHUNK) ask = IDX_READ_CHUNK;
    int n = gzread(file, (uint8_t *)buffer + got, (unsigned)ask);
    if (n < 0) return -1;
    if (n == 0) break;
    got += (size_t)n;
  }
  return (long long)got;
}

/* Names the gzip problem, if the stream has one. Returns 1 when it had. */
static int gzip_failed(gzFile file, const char *path, idx_error *err) {
  int code = Z_OK;
  const char *text = gzerror(file, &code);
  if (code == Z_OK || code == Z_STREAM_END) return 0;
  idx_fail(err, IDX_ERR_GZIP,
           "%s: expected a valid gzip stream, found a %s one (zlib: %s); "
           "hint: truncated download? fetch it again with "
           "scripts/download_mnist.sh",
           path, code == Z_BUF_ERROR ? "truncated" : "corrupt", text);
  return 1;
}

static enum idx_status check_path(const char *path, off_t *size,
                                  idx_error *err) {
  struct stat info;
  if (stat(path, &info) != 0)
    return idx_fail(err, IDX_ERR_OPEN,
                    "%s: expected an idx file, found none (%s); hint: "
                    "run scripts/download_mnist.sh to fetch the data",
                    path, strerror(errno));
  if (S_ISDIR(info.st_mode))
    return idx_fail(err, IDX_ERR_OPEN,
                    "%s: expected an idx file, found a directory", path);
  if (!S_ISREG(info.st_mode))
    return idx_fail(err, IDX_ERR_OPEN,
                    "%s: expected a regular idx file, found another kind of "
                    "file (device, fifo or socket)",
                    path);
  if (info.st_size == 0)
    return idx_fail(err, IDX_ERR_EMPTY,
                    "%s: expected an idx file, found an empty file (0 bytes); "
                    "hint: interrupted download?",
                    path);
  *size = info.st_size;
  return IDX_OK;
}

/* Parses magic, type and dims from `file` into `out` (no payload yet). */
static enum idx_status read_header(idx_array *out, gzFile file,
                                   const char *path, size_t *header_bytes,
                                   idx_error *err) {
  uint8_t magic[4];
  long long got = read_fully(file, magic, sizeof magic);
  if (got < 0 && gzip_failed(file, path, err)) return err->status;
  if (got < 4) {
    if (gzip_failed(file, path, err)) return err->status;
    return idx_fail(err, IDX_ERR_HEADER,
                    "%s: expected a 4-byte idx magic, found only %lld "
                    "byte(s); hint: truncated download?",
                    path, got < 0 ? 0 : got);
  }
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
  got = read_fully(file, dims, 4 * (size_t)rank);
  if (got != 4 * rank) {
    if (gzip_failed(file, path, err)) return err->status;
    return idx_fail(err, IDX_ERR_HEADER,
                    "%s: expected %d bytes of dimension sizes, found %lld; "
                    "hint: truncated download?",
                    path, 4 * rank, got < 0 ? 0 : got);
  }
  uint64_t bytes = element_size;
  size_t count = 1;
  for (int d = 0; d < rank; d++) {
    const uint8_t *p = dims + 4 * d;
    out->dims[d] = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
                   (uint32_t)p[2] << 8 | (uint32_t)p[3];
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
  out->type = (enum idx_type)magic[2];
  out->rank = rank;
  out->count = count;
  out->element_size = element_size;
  *header_bytes = 4 + 4 * (size_t)rank;
  return IDX_OK;
}

/* Reads the payload, growing the buffer only as bytes arrive. */
static enum idx_status read_payload(idx_array *out, gzFile file,
                                    const char *path, idx_error *err) {
  size_t want = out->count * out->element_size;
  size_t capacity = 0, got = 0;
  uint8_t *buffer = NULL;
  while (got < want) {
    if (got == capacity) {
      size_t grow = capacity ? capacity : IDX_READ_CHUNK;
      size_t next = capacity + grow < want ? capacity + grow : want;
      uint8_t *bigger = realloc(buffer, next);
      if (!bigger) {
        free(buffer);
        return idx_fail(err, IDX_ERR_NOMEM,
                        "%s: out of memory reading %zu "
                        "bytes",
                        path, next);
      }
      buffer = bigger;
      capacity = next;
    }
    long long n = read_fully(file, buffer + got, capacity - got);
    if (n < 0 || gzip_failed(file, path, err)) {
      free(buffer);
      if (n < 0 && !gzip_failed(file, path, err))
        idx_fail(err, IDX_ERR_GZIP, "%s: read error", path);
      return err->status;
    }
    if (n == 0) break;
    got += (size_t)n;
  }
  if (got < want) {
    free(buffer);
    return idx_fail(err, IDX_ERR_TRUNCATED,
                    "%s: expected %zu bytes of data after the header, found "
                    "%zu; hint: truncated download?",
                    path, want, got);
  }
  uint8_t extra[64];
  long long more = read_fully(file, extra, sizeof extra);
  if (more != 0) {
    free(buffer);
    if (more < 0 || gzip_failed(file, path, err)) {
      if (more < 0 && !gzip_failed(file, path, err))
        idx_fail(err, IDX_ERR_GZIP, "%s: read error", path);
      return err->status;
    }
    return idx_fail(err, IDX_ERR_TRAILING,
                    "%s: expected exactly %zu bytes of data, found more "
                    "(trailing bytes); hint: two files concatenated?",
                    path, want);
  }
  out->data = buffer;
  return IDX_OK;
}

enum idx_status idx_read(idx_array *out, const char *path, idx_error *err) {
  memset(out, 0, sizeof *out);
  if (err) {
    err->status = IDX_OK;
    err->message[0] = '\0';
  }
  off_t file_size = 0;
  enum idx_status status = check_path(path, &file_size, err);
  if (status != IDX_OK) return status;
  gzFile file = gzopen(path, "rb");
  if (!file)
    return idx_fail(err, IDX_ERR_OPEN,
                    "%s: expected a readable file, could "
                    "not open it (%s)",
                    path, strerror(errno));
  size_t header_bytes = 0;
  status = read_header(out, file, path, &header_bytes, err);
  if (status == IDX_OK && gzdirect(file)) {
    /* Raw file: its size must match the header before anything is
     * allocated. */
    uint64_t expected = header_bytes + (uint64_t)out->count * out->element_size;
    if ((uint64_t)file_size < expected)
      status = idx_fail(err, IDX_ERR_TRUNCATED,
                        "%s: expected %llu bytes (header says %zu elements), "
                        "found a %lld-byte file; hint: truncated download?",
                        path, (unsigned long long)expected, out->count,
                        (long long)file_size);
    else if ((uint64_t)file_size > expected)
      status =
          idx_fail(err, IDX_ERR_TRAILING,
                   "%s: expected %llu bytes, found a %lld-byte file "
                   "(trailing bytes); hint: two files concatenated?",
                   path, (unsigned long long)expected, (long long)file_size);
  }
  if (status == IDX_OK) status = read_payload(out, file, path, err);
  gzclose(file);
  if (status != IDX_OK) {
    idx_array_destroy(out);
    return status;
  }
  return IDX_OK;
}
