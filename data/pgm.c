/* pgm.c: see pgm.h. */
#include "data/pgm.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

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

/* -1 with `err` saying what `f` (not a PGM) is: a folder, an empty file,
 * or a file starting with other bytes. */
static int not_pgm(FILE *f, const char *head, size_t got, const char *path,
                   char *err, size_t err_size) {
  struct stat info;
  char shown[16] = "";
  for (size_t i = 0; i < got; i++)
    shown[i] = isprint((unsigned char)head[i]) ? head[i] : '?';
  if (fstat(fileno(f), &info) == 0 && S_ISDIR(info.st_mode))
    snprintf(err, err_size,
             "%s: expected a PGM image (P5 or P2), found a "
             "folder",
             path);
  else if (got == 0)
    snprintf(err, err_size,
             "%s: expected a PGM image (P5 or P2), found an empty file", path);
  else
    snprintf(err, err_size,
             "%s: expected a PGM image (P5 or P2), found a file starting "
             "'%s'",
             path, shown);
  return -1;
}

int pgm_read(uint8_t *pixels, const char *path, char *err, size_t err_size) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(err, err_size, "%s: cannot open: %s", path, strerror(errno));
    return -1;
  }
  char head[5] = {0};
  size_t got = fread(head, 1, 4, f);
  int status = -1;
  long maxval = 0;
  if (got < 2 || head[0] != 'P' || (head[1] != '5' && head[1] != '2')) {
    not_pgm(f, head, got, path, err, err_size);
  } else {
    /* Back to just after the magic. */
    fseek(f, 2, SEEK_SET);
    int plain = head[1] == '2';
    if (read_header(&maxval, f, plain, path, err, err_size) == 0)
      status = read_pixels(pixels, f, plain, maxval, path, err, err_size);
  }
  fclose(f);
  return status;
}
