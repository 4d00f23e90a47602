/* pgm.c: see pgm.h. */
#include "data/pgm.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

/* The next header number, skipping whitespace and comments; -1 when none
 * (or over 65535). */
static long next_number(FILE *f) {
  int c = fgetc(f);
  while (c != EOF && (isspace(c) || c == '#')) {
    if (c == '#')
      while (c != EOF && c != '\n')
        c = fgetc(f);
    c = fgetc(f);
  }
  if (c == EOF || !isdigit(c)) return -1;
  long value = 0;
  while (c != EOF && isdigit(c)) {
    value = value * 10 + (c - '0');
    if (value > 65535) return -1;
    c = fgetc(f);
  }
  return value; /* the one whitespace after it is consumed */
}

static int read_pixels(uint8_t *pixels, FILE *f, int plain, long maxval,
                       const char *path, char *err, size_t err_size) {
  for (int p = 0; p < PGM_SIDE * PGM_SIDE; p++) {
    long v = plain ? next_number(f) : fgetc(f);
    if (v < 0 || v > maxval) {
      snprintf(err, err_size,
               "%s: expected %d pixels from 0 to %ld, found %s at pixel %d",
               path, PGM_SIDE * PGM_SIDE, maxval,
               v < 0 ? "the end of the data" : "a larger value", p);
      return -1;
    }
    pixels[p] = (uint8_t)(v * 255 / maxval);
  }
  int extra = plain ? (int)next_number(f) : fgetc(f);
  if (extra != -1 && extra != EOF) {
    snprintf(err, err_size, "%s: expected %d pixels, found more data", path,
             PGM_SIDE * PGM_SIDE);
    return -1;
  }
  return 0;
}

int pgm_read(uint8_t *pixels, const char *path, char *err, size_t err_size) {
  FILE *f = fopen(path, "rb");
  if (!f) {
    snprintf(err, err_size, "%s: cannot open: %s", path, strerror(errno));
    return -1;
  }
  char magic[3] = {0};
  int status = -1;
  if (fread(magic, 1, 2, f) != 2 || magic[0] != 'P' ||
      (magic[1] != '5' && magic[1] != '2')) {
    snprintf(err, err_size,
             "%s: expected a PGM image (P5 or P2), found another format", path);
  } else {
    long w = next_number(f), h = next_number(f), maxval = next_number(f);
    if (w != PGM_SIDE || h != PGM_SIDE)
      snprintf(err, err_size, "%s: expected a %dx%d image, found %ldx%ld", path,
               PGM_SIDE, PGM_SIDE, w, h);
    else if (maxval < 1 || maxval > 255)
      snprintf(err, err_size,
               "%s: expected 8-bit grey (maxval 1 to 255), found maxval %ld",
               path, maxval);
    else
      status =
          read_pixels(pixels, f, magic[1] == '2', maxval, path, err, err_size);
  }
  fclose(f);
  return status;
}
