/* gpu_grid.h: grid sizes for the project's grid-stride kernels. */
#ifndef MNIST_EPILOGS_GPU_GRID_H
#define MNIST_EPILOGS_GPU_GRID_H

#include <stddef.h>

/* Blocks of `threads` for `count` grid-stride items: at least 1, at most
 * 65535 * 32 (the loops stride over the rest). */
static inline unsigned gpu_grid_blocks(size_t count, unsigned threads) {
  size_t blocks = (count + threads - 1) / threads;
  return (unsigned)(blocks < 65535 * 32 ? (blocks ? blocks : 1) : 65535 * 32);
}

#endif
