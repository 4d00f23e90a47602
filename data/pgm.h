/* pgm.h: a 28x28 grey image in the PGM format (binary P5 or plain P2,
 * 8-bit), for `mnist_predict --image`. Plain C. */
#ifndef MNIST_EPILOGS_PGM_H
#define MNIST_EPILOGS_PGM_H

#include <stdint.h>

#include "data/idx_error.h"

#define PGM_SIDE 28
/* The largest file taken: a plain (P2) 28x28 image with generous comments
 * fits many times over; anything larger is not one image. */
#define PGM_MAX_BYTES (1 << 20)

/* Reads `path` into pixels[784] row-major, 0 = black (as MNIST: 255 is
 * ink), scaled to 0..255 when maxval is below 255. The header may hold
 * comments (#...). Only a regular file of at most PGM_MAX_BYTES is read (a
 * FIFO or a device is refused without waiting). Returns IDX_OK, or the
 * error (IDX_ERR_OPEN, _SIZE, _EMPTY, _HEADER: magic, size, maxval;
 * _CONTENT: short, long or out-of-range pixel data) with `err` naming the
 * file, what was expected and what was found. */
enum idx_status pgm_read(uint8_t *pixels, const char *path, idx_error *err);

#endif
