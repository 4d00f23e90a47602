/* fp8_tile.cuh: the tile of codes the FP8 cast and transpose share, staged
 * transposed in shared memory by byte permutes, written 16 bytes a store. */
#ifndef MNIST_EPILOGS_FP8_TILE_CUH
#define MNIST_EPILOGS_FP8_TILE_CUH

#include <stdint.h>

#include "layers/fp8_cast.h"

enum { FP8_TILE_COLS = FP8_CAST_TILE, FP8_TILE_THREADS = 128 };

static __host__ __device__ inline int fp8_round16(int n) {
  return (n + 15) / 16 * 16;
}

/* Byte `column` of line `line`: the line's 16-byte chunk p sits at chunk p XOR
 * (2 x its row group): a warp's staging stores span 32 banks, chunks whole. */
template <int TILE_ROWS>
static __device__ __forceinline__ uint8_t *
fp8_tile_at(uint8_t (*tile_t)[FP8_TILE_COLS], int line, int column) {
  int chunk = (column / 16) ^ (2 * ((line / (TILE_ROWS / 4)) & 3));
  return &tile_t[line][16 * chunk + column % 16];
}

/* Four columns' words (rows 4 k .. 4 k + 3 of each) transposed into
 * tile_t rows `row` .. + 3, columns 4 cq .. + 3 (4 x 4 byte permutes). */
template <int TILE_ROWS>
static __device__ __forceinline__ void
fp8_stage_words(uint8_t (*tile_t)[FP8_TILE_COLS], const uint32_t c[4], int row,
                int cq) {
  uint32_t t0 = __byte_perm(c[0], c[1], 0x5140),
           t1 = __byte_perm(c[2], c[3], 0x5140),
           t2 = __byte_perm(c[0], c[1], 0x7362),
           t3 = __byte_perm(c[2], c[3], 0x7362);
  uint32_t line[4] = {__byte_perm(t0, t1, 0x5410), __byte_perm(t0, t1, 0x7632),
                      __byte_perm(t2, t3, 0x5410), __byte_perm(t2, t3, 0x7632)};
#pragma unroll
  for (int k = 0; k < 4; k++)
    *(uint32_t *)fp8_tile_at<TILE_ROWS>(tile_t, row + k, 4 * cq) = line[k];
}

/* After the block synchronised: line i of tile (tx, ty) (source row tx *
 * TILE_ROWS + i) to out_t's row, 16 bytes a store, rows < `rows`, columns <
 * fp8_round16(`cols`), a thread the same part of each LINES_APART-th line. */
template <int TILE_ROWS>
static __device__ __forceinline__ void
fp8_write_transposed(uint8_t *out_t, int ld_t, uint8_t (*tile_t)[FP8_TILE_COLS],
                     int rows, int cols, int tx, int ty) {
  enum {
    PARTS = FP8_TILE_COLS / 16,
    LINES_APART = FP8_TILE_THREADS / PARTS,
    STORES = TILE_ROWS / LINES_APART
  };
  static_assert(TILE_ROWS % LINES_APART == 0, "whole lines a thread");
  int part = threadIdx.x % PARTS, line = threadIdx.x / PARTS;
  int i = tx * TILE_ROWS + line, j = ty * FP8_TILE_COLS + 16 * part;
  if (j >= fp8_round16(cols)) return;
  uint8_t *out = out_t + (size_t)i * ld_t + j;
  const size_t apart = (size_t)LINES_APART * ld_t;
#pragma unroll
  for (int k = 0; k < STORES; k++, i += LINES_APART, out += apart)
    if (i < rows)
      *(uint4 *)out = *(const uint4 *)fp8_tile_at<TILE_ROWS>(
          tile_t, line + k * LINES_APART, 16 * part);
}

#endif
