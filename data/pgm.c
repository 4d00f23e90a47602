/* pgm.c: see pgm.h. */
#include "data/pgm.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One header or plain-pixel token, as found. */
typedef struct pgm_token {
  long value;    /* the number (0 to 65535), or -1 when it is not one */
  int digits;    /* 1 when the token is all digits (however large) */
  int after;     /* the byte that ended it (EOF at the end) */
  char text[32]; /* what is there, for messages: 'token' or the end */
} pgm_token;

/* The next token, skipping whitespace and comments (#... to line end). */
static pgm_token next_token(FILE *f) {
  pgm_token t = {-1, 0, EOF, "the end of the data"};
  int c = fgetc(f);
  while (c != EOF && (isspace(c) || c == '#')) {
    if (c == '#')
      while (c != EOF && c != '\n')
        c = fgetc(f);
    c = fgetc(f);
  }
  if (c == EOF) return t;
  char word[21];
  int length = 0, longer = 0;
  t.digits = 1;
  long value = 0;
  for (; c != EOF && !isspace(c) && c != '#'; c = fgetc(f)) {
    if (length < 20)
      word[length++] = isprint(c) ? (char)c : '?';
    else
      longer = 1;
    t.digits = t.digits && isdigit(c);
    if (t.digits && value <= 65535) value = value * 10 + (c - '0');
  }
  if (c == '#') ungetc(c, f);
  t.after = c == '#' ? ' ' : c;
  word[length] = '\0';
  snprintf(t.text, sizeof t.text, "'%s%s'", word, longer ? "..." : "");
  if (t.digits && value <= 65535) t.value = value;
  return t;
}

static int read_pixels(uint8_t *pixels, FILE *f, int plain, long maxval,
                       const char *path, char *err, size_t err_size) {
  for (int p = 0; p < PGM_SIDE * PGM_SIDE; p++) {
    pgm_token t = {-1, 0, EOF, "the end of the data"};
    if (plain) {
      t = next_token(f);
    } else if ((t.value = fgetc(f)) != EOF) {
      snprintf(t.text, sizeof t.text, "%ld", t.value);
    }
    if (t.value < 0 || t.value > maxval) {
      snprintf(err, err_size,
               "%s: expected %d pixels from 0 to %ld, found %s%s at pixel %d",
               path, PGM_SIDE * PGM_SIDE, maxval, t.text,
               t.value > maxval ? ", a larger value," : "", p);
      return -1;
    }
    pixels[p] = (uint8_t)(t.value * 255 / maxval);
  }
  long extra = 0;
  if (plain)
    extra = next_token(f).text[0] == '\'';
  else
    while (extra < (1L << 30) && fgetc(f) != EOF)
      extra++;
  if (extra) {
    snprintf(err, err_size,
             "%s: expected %d pixels, found more data after them (%s%ld)", path,
             PGM_SIDE * PGM_SIDE,
             plain ? "more numbers: at least " : "bytes: ", extra);
    return -1;
  }
  return 0;
}

/* The header after the magic: 28 28 maxval and one whitespace byte. Fills
 * *maxval; returns 0, or -1 with `err`. */
static int read_header(long *maxval, FILE *f, int plain, const char *path,
                       char *err, size_t err_size) {
  pgm_token w = next_token(f), h = next_token(f);
  if (!w.digits || !h.digits) {
    snprintf(err, err_size,
             "%s: expected a %dx%d image, found %s where the %s should be",
             path, PGM_SIDE, PGM_SIDE, w.digits ? h.text : w.text,
             w.digits ? "height" : "width");
    return -1;
  }
  if (w.value != PGM_SIDE || h.value != PGM_SIDE) {
    /* Both all digits: shown without their quotes. */
    snprintf(err, err_size, "%s: expected a %dx%d image, found %.*sx%.*s", path,
             PGM_SIDE, PGM_SIDE, (int)strlen(w.text) - 2, w.text + 1,
             (int)strlen(h.text) - 2, h.text + 1);
    return -1;
  }
  pgm_token m = next_token(f);
  *maxval = m.value;
  if (m.value < 1 || m.value > 255) {
    snprintf(err, err_size,
             "%s: expected 8-bit grey (maxval 1 to 255), found maxval %s", path,
             m.text);
    return -1;
  }
  if (!plain && m.after == '\r') {
    int next = fgetc(f);
    if (next == '\n') {
      snprintf(err, err_size,
               "%s: expected one whitespace byte after maxval, found CR LF "
               "(a header with Windows line ends)",
               path);
      return -1;
    }
    if (next != EOF) ungetc(next, f);
  }
  return 0;
}

/* -1 with `err` saying what `f` (not a PGM) is: an empty file, or a file
 * starting with other bytes. */
static int not_pgm(const char *head, size_t got, const char *path, char *err,
                   size_t err_size) {
  char shown[16] = "";
  for (size_t i = 0; i < got; i++)
    shown[i] = isprint((unsigned char)head[i]) ? head[i] : '?';
  if (got == 0)
    snprintf(err, err_size,
             "%s: expected a PGM image (P5 or P2), found an empty file", path);
  else
    snprintf(err, err_size,
             "%s: expected a PGM image (P5 or P2), found a file starting "
             "'%s'",
             path, shown);
  return -1;
}

/* What a file that is not a regular one is, in words. */
static const char *not_regular(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device";
  return "a socket or other special file";
}

/* Opens `path` for reading without waiting (O_NONBLOCK: a FIFO would block
 * a plain open until a writer came) and judges what was opened before a
 * byte is read: a regular file of at most PGM_MAX_BYTES. NULL with
 * err->status IDX_ERR_OPEN and the message when it is not. */
static FILE *open_regular(const char *path, idx_error *err) {
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    idx_fail(err, IDX_ERR_OPEN,
             "%s: expected a PGM image, found none: cannot open: %s", path,
             strerror(errno));
    return NULL;
  }
  struct stat info;
  FILE *f = NULL;
  if (fstat(fd, &info) != 0)
    idx_fail(err, IDX_ERR_OPEN,
             "%s: expected a PGM image, cannot look at it: %s", path,
             strerror(errno));
  else if (!S_ISREG(info.st_mode))
    idx_fail(err, IDX_ERR_OPEN,
             "%s: expected a PGM image (a regular file), found %s", path,
             not_regular(info.st_mode));
  else if (info.st_size > PGM_MAX_BYTES)
    idx_fail(err, IDX_ERR_SIZE,
             "%s: expected a 28x28 PGM image of at most %d bytes, found %lld "
             "bytes",
             path, PGM_MAX_BYTES, (long long)info.st_size);
  else if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0 ||
           !(f = fdopen(fd, "rb")))
    idx_fail(err, IDX_ERR_OPEN, "%s: expected a readable file: %s", path,
             strerror(errno));
  if (!f) close(fd);
  return f;
}

enum idx_status pgm_read(uint8_t *pixels, const char *path, idx_error *err) {
  FILE *f = open_regular(path, err);
  if (!f) return err->status;
  char head[5] = {0};
  size_t got = fread(head, 1, 4, f);
  enum idx_status status = IDX_ERR_HEADER;
  long maxval = 0;
  char *message = err->message;
  size_t size = sizeof err->message;
  if (got < 2 || head[0] != 'P' || (head[1] != '5' && head[1] != '2')) {
    not_pgm(head, got, path, message, size);
    if (got == 0) status = IDX_ERR_EMPTY;
  } else {
    /* Back to just after the magic. */
    fseek(f, 2, SEEK_SET);
    int plain = head[1] == '2';
    if (read_header(&maxval, f, plain, path, message, size) == 0)
      status = read_pixels(pixels, f, plain, maxval, path, message, size) == 0
                   ? IDX_OK
                   : IDX_ERR_CONTENT;
  }
  fclose(f);
  err->status = status;
  return status;
}
