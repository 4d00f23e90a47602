/* pgm.h: a 28x28 grey image in the PGM format (binary P5 or plain P2,
 * 8-bit), for `mnist_predict --image`. Plain C. */
#ifndef MNIST_EPILOGS_PGM_H
#define MNIST_EPILOGS_PGM_H

#include <stddef.h>
#include <stdint.h>

#define PGM_SIDE 28

/* Reads `path` into pixels[784] row-major, 0 = black (as MNIST: 255 is
 * ink), scaled to 0..255 when maxval is below 255. The header may hold
 * comments (#...). Returns 0, or -1 with `err` naming the file, what was
 * expected and what was found (magic, size, maxval, short or long pixel
 * data). */
int pgm_read(uint8_t *pixels, const char *path, char *err, size_t err_size);

#endif
