/* idx_source.c: raw or gzip bytes of one file, read with read(2) and zlib's
 * inflate() (not gzread, which ignores garbage after a gzip member). See
 * idx_source.h. */
#include "data/idx_source.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

enum { IDX_SOURCE_INPUT = 64 << 10 };

struct idx_source {
  const char *path;       /* borrowed, for messages */
  int fd;                 /* -1 when closed */
  uint64_t file_size;     /* bytes on disk */
  uint64_t taken;         /* bytes read from the file so far */
  int eof;                /* read(2) has returned 0 */
  int gzip;               /* 1: inflate what is read; 0: raw */
  int zlib_ready;         /* inflateInit2 succeeded: inflateEnd is owed */
  int ended;              /* gzip: the last member ended, nothing follows */
  z_stream zs;            /* gzip: next_in/avail_in always describe `input` */
  uint8_t *input;         /* IDX_SOURCE_INPUT bytes */
  size_t raw_at, raw_end; /* raw: unread bytes input[raw_at..raw_end) */
};

static enum idx_status io_failed(idx_source *s, idx_error *err) {
  return idx_fail(err, IDX_ERR_OPEN,
                  "%s: expected a readable file, could not read it (%s)",
                  s->path, strerror(errno));
}

/* read(2) retried on EINTR. Returns the count, 0 at the end, -1 on error. */
static ssize_t read_some(int fd, void *buffer, size_t size) {
  ssize_t n;
  do
    n = read(fd, buffer, size);
  while (n < 0 && errno == EINTR);
  return n;
}

/* gzip: moves the unread input to the front and reads more behind it. */
static enum idx_status refill(idx_source *s, idx_error *err) {
  if (s->zs.avail_in && s->zs.next_in != s->input)
    memmove(s->input, s->zs.next_in, s->zs.avail_in);
  s->zs.next_in = s->input;
  ssize_t n = read_some(s->fd, s->input + s->zs.avail_in,
                        IDX_SOURCE_INPUT - s->zs.avail_in);
  if (n < 0) return io_failed(s, err);
  if (n == 0) s->eof = 1;
  s->zs.avail_in += (uInt)n;
  s->taken += (uint64_t)n;
  return IDX_OK;
}

static enum idx_status gzip_cut(idx_source *s, idx_error *err) {
  return idx_fail(err, IDX_ERR_GZIP,
                  "%s: expected a valid gzip stream, found a truncated one "
                  "(zlib: unexpected end of file); hint: truncated download? "
                  "fetch it again with scripts/download_mnist.sh",
                  s->path);
}

static enum idx_status gzip_damaged(idx_source *s, idx_error *err) {
  return idx_fail(err, IDX_ERR_GZIP,
                  "%s: starts with the gzip magic 1f 8b but is not a valid "
                  "gzip stream (zlib: %s); hint: a raw idx file starts with "
                  "00 00, so this file is damaged (corrupt, not just cut "
                  "short): fetch it again with scripts/download_mnist.sh",
                  s->path, s->zs.msg ? s->zs.msg : "invalid stream");
}

/* A gzip member has ended: another member (1f 8b) is read on, the end of
 * the file ends the data, anything else is trailing garbage. */
static enum idx_status member_ended(idx_source *s, idx_error *err) {
  while (s->zs.avail_in < 2 && !s->eof) {
    enum idx_status status = refill(s, err);
    if (status != IDX_OK) return status;
  }
  if (s->zs.avail_in == 0) {
    s->ended = 1;
    return IDX_OK;
  }
  if (s->zs.avail_in >= 2 && s->zs.next_in[0] == 0x1f &&
      s->zs.next_in[1] == 0x8b) {
    if (inflateReset(&s->zs) != Z_OK) return gzip_damaged(s, err);
    return IDX_OK;
  }
  uint64_t end = s->taken - s->zs.avail_in;
  uint64_t extra = s->file_size > end ? s->file_size - end : s->zs.avail_in;
  return idx_fail(err, IDX_ERR_TRAILING,
                  "%s: expected the file to end with its gzip stream, found "
                  "%llu byte(s) after the end of the gzip stream (at offset "
                  "%llu, starting %02x); hint: a damaged copy, or two files "
                  "concatenated? fetch it again with scripts/download_mnist.sh",
                  s->path, (unsigned long long)extra, (unsigned long long)end,
                  s->zs.next_in[0]);
}

static enum idx_status gzip_read(idx_source *s, uint8_t *buffer, size_t size,
                                 size_t *got, idx_error *err) {
  while (*got < size && !s->ended) {
    if (s->zs.avail_in == 0 && !s->eof) {
      enum idx_status status = refill(s, err);
      if (status != IDX_OK) return status;
      continue;
    }
    size_t ask = size - *got < UINT_MAX ? size - *got : UINT_MAX;
    s->zs.next_out = buffer + *got;
    s->zs.avail_out = (uInt)ask;
    int code = inflate(&s->zs, Z_NO_FLUSH);
    *got += ask - s->zs.avail_out;
    if (code == Z_STREAM_END) {
      enum idx_status status = member_ended(s, err);
      if (status != IDX_OK) return status;
    } else if (code == Z_BUF_ERROR) {
      /* No progress: with room for output, only missing input stops it. */
      if (s->zs.avail_in == 0 && s->eof) return gzip_cut(s, err);
      if (s->zs.avail_in != 0) return gzip_damaged(s, err);
    } else if (code == Z_MEM_ERROR) {
      return idx_fail(err, IDX_ERR_NOMEM, "%s: out of memory in zlib", s->path);
    } else if (code != Z_OK) {
      return gzip_damaged(s, err);
    }
  }
  return IDX_OK;
}

static enum idx_status raw_read(idx_source *s, uint8_t *buffer, size_t size,
                                size_t *got, idx_error *err) {
  size_t buffered = s->raw_end - s->raw_at;
  if (buffered > size) buffered = size;
  memcpy(buffer, s->input + s->raw_at, buffered);
  s->raw_at += buffered;
  *got = buffered;
  while (*got < size && !s->eof) {
    size_t ask = size - *got < (1u << 30) ? size - *got : (1u << 30);
    ssize_t n = read_some(s->fd, buffer + *got, ask);
    if (n < 0) return io_failed(s, err);
    if (n == 0) s->eof = 1;
    *got += (size_t)n;
  }
  return IDX_OK;
}

enum idx_status idx_source_read(idx_source *source, void *buffer, size_t size,
                                size_t *got, idx_error *err) {
  *got = 0;
  if (source->gzip) return gzip_read(source, buffer, size, got, err);
  return raw_read(source, buffer, size, got, err);
}

int idx_source_is_gzip(const idx_source *source) {
  return source->gzip;
}

uint64_t idx_source_file_size(const idx_source *source) {
  return source->file_size;
}

void idx_source_destroy(idx_source *source) {
  if (!source) return;
  if (source->zlib_ready) inflateEnd(&source->zs);
  if (source->fd >= 0) close(source->fd);
  free(source->input);
  free(source);
}

/* Checks what `path` is before opening it (opening a fifo would block). */
static enum idx_status check_kind(const struct stat *info, const char *path,
                                  idx_error *err) {
  if (S_ISDIR(info->st_mode))
    return idx_fail(err, IDX_ERR_OPEN,
                    "%s: expected an idx file, found a directory", path);
  if (!S_ISREG(info->st_mode))
    return idx_fail(err, IDX_ERR_OPEN,
                    "%s: expected a regular idx file, found another kind of "
                    "file (device, fifo or socket)",
                    path);
  if (info->st_size == 0)
    return idx_fail(err, IDX_ERR_EMPTY,
                    "%s: expected an idx file, found an empty file (0 bytes); "
                    "hint: interrupted download?",
                    path);
  return IDX_OK;
}

/* Opens the file and fills the input buffer's first bytes. */
static enum idx_status source_open(idx_source *s, idx_error *err) {
  struct stat info;
  if (stat(s->path, &info) != 0) {
    if (errno == ENOENT)
      return idx_fail(err, IDX_ERR_OPEN,
                      "%s: expected an idx file, found none (%s); hint: "
                      "run scripts/download_mnist.sh to fetch the data",
                      s->path, strerror(errno));
    return idx_fail(err, IDX_ERR_OPEN,
                    "%s: expected a readable idx file, could not look at it "
                    "(%s)",
                    s->path, strerror(errno));
  }
  enum idx_status status = check_kind(&info, s->path, err);
  if (status != IDX_OK) return status;
  s->fd = open(s->path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (s->fd < 0)
    return idx_fail(err, IDX_ERR_OPEN,
                    "%s: expected a readable file, could not open it (%s)",
                    s->path, strerror(errno));
  /* The file may have been replaced since stat: judge the one opened. */
  if (fstat(s->fd, &info) != 0) return io_failed(s, err);
  status = check_kind(&info, s->path, err);
  if (status != IDX_OK) return status;
  s->file_size = (uint64_t)info.st_size;
  s->input = malloc(IDX_SOURCE_INPUT);
  if (!s->input)
    return idx_fail(err, IDX_ERR_NOMEM, "%s: out of memory", s->path);
  s->zs.next_in = s->input;
  while (s->zs.avail_in < 2 && !s->eof) {
    status = refill(s, err);
    if (status != IDX_OK) return status;
  }
  s->gzip = s->zs.avail_in >= 2 && s->input[0] == 0x1f && s->input[1] == 0x8b;
  if (!s->gzip) {
    s->raw_at = 0;
    s->raw_end = s->zs.avail_in;
    return IDX_OK;
  }
  /* 16 + MAX_WBITS: a gzip wrapper (header, CRC-32 and length checked). */
  int code = inflateInit2(&s->zs, 16 + MAX_WBITS);
  if (code != Z_OK)
    return idx_fail(err, code == Z_MEM_ERROR ? IDX_ERR_NOMEM : IDX_ERR_GZIP,
                    "%s: could not start zlib (%s)", s->path,
                    s->zs.msg ? s->zs.msg : zError(code));
  s->zlib_ready = 1;
  return IDX_OK;
}

enum idx_status idx_source_create(idx_source **out, const char *path,
                                  idx_error *err) {
  *out = NULL;
  idx_source *s = calloc(1, sizeof *s);
  if (!s) return idx_fail(err, IDX_ERR_NOMEM, "%s: out of memory", path);
  s->path = path;
  s->fd = -1;
  enum idx_status status = source_open(s, err);
  if (status != IDX_OK) {
    idx_source_destroy(s);
    return status;
  }
  *out = s;
  return IDX_OK;
}
