/* fp8_cast.cu: the FP8 cast (fp8_cast.h). A tile is 32 rows by
 * FP8_CAST_TILE (128) columns, 128 threads (layers/fp8_tile.cuh); thread t
 * holds rows 8 (t % 4) .. + 7 of columns 4 (t / 4) .. + 3: 16-byte loads
 * of BF16, an 8-byte store of its codes per column, the codes transposed
 * through shared memory. A block casts tiles t, t + gridDim.x, ... (as
 * many blocks as the GPU holds at once), the next tile's loads issued as
 * soon as this one is decoded, so they are in flight while it is
 * converted, stored and transposed (one tile a block waited for its loads
 * with nothing else to do: 24-28 us for a 4096 x 4096 masked cast against
 * 22-23, ncu, session 15). One atomic per block for the amax and each
 * count; the scale read, never recomputed from a history. 64-row tiles
 * made a batch-256 cast 32 blocks (the fp8 rows at 784-1024-1024-10 ran
 * 4-9 % slower: docs/performance.md, "FP8"). Instructions cost time at
 * 3.6 warps a scheduler (session 16), so the loop divides nothing, strides
 * the columns' addresses, unrolls the transposed stores, sums the
 * partials through shared memory and packs the zero counts (10.0 M
 * instructions for a 4096 x 4096 masked cast against 11.7 M, 13.2 M
 * before session 16; its time fell less: the loads' latency at 25 % occupancy).
 */
#include <stdio.h>

#include "gpu/gpu_check.h"
#include "gpu/gpu_launch.cuh"
#include "layers/fp8_cast.h"
#include "layers/fp8_device.cuh"
#include "layers/fp8_tile.cuh"
#include "lt/lt_gelu.h"
#include "lt/lt_types.cuh"

enum { CAST_ROWS = 32, COLS = FP8_TILE_COLS, THREADS = FP8_TILE_THREADS };

/* Column c, rows r .. r + 7 of the source and what its mask reads, as
 * loaded (zeros past the matrix: they decode to 0 under every mask). A
 * thread loads its four columns before it decodes any, so that the loads
 * are in flight together (decoding each right after its own load had the
 * compiler wait for each in turn: session 5, call C). The compiler keeps
 * that order for the ReLU and unmasked casts; GELU's long decoding has it
 * issue two columns' loads first and the other two's after. */
template <typename S> struct column_raw {
  uint4 v[sizeof(S) / 2], z; /* 8 values (BF16: 1 vector); GELU's z */
  unsigned bits;             /* RELU's mask bits */
};

template <typename S, fp8_mask MASK>
__device__ __forceinline__ void load_column(column_raw<S> &raw, const S *src,
                                            const uint8_t *aux, bool in) {
  const uint4 zero = make_uint4(0, 0, 0, 0);
#pragma unroll
  for (int k = 0; k < (int)sizeof(S) / 2; k++)
    raw.v[k] = in ? ((const uint4 *)src)[k] : zero;
  raw.bits = MASK == FP8_MASK_RELU && in ? *aux : 0u;
  raw.z = MASK == FP8_MASK_GELU && in ? *(const uint4 *)aux : zero;
}

/* The 8 values of a loaded column, masked as `a` says (GELU: rounded to
 * the source type, the value a 16-bit buffer would hold). */
template <typename S, fp8_mask MASK>
__device__ __forceinline__ void decode_column(float x[8],
                                              const column_raw<S> &raw) {
  const S *e = (const S *)raw.v;
  const __nv_bfloat16 *z = (const __nv_bfloat16 *)&raw.z;
#pragma unroll
  for (int i = 0; i < 8; i++) {
    x[i] = lt_to_float(e[i]);
    if (MASK == FP8_MASK_RELU) x[i] = (raw.bits >> i) & 1 ? x[i] : 0.0f;
    if (MASK == FP8_MASK_GELU)
      x[i] =
          lt_to_float(lt_from_float<S>(x[i] * lt_gelu_grad(lt_to_float(z[i]))));
  }
}

/* Four rows' codes of one column in a word, two values per conversion. */
static __device__ __forceinline__ uint32_t pack4(const float *x, float scale,
                                                 __nv_fp8_interpretation_t k) {
  return (uint32_t)__nv_cvt_float2_to_fp8x2(
             make_float2(x[0] * scale, x[1] * scale), __NV_SATFINITE, k) |
         (uint32_t)__nv_cvt_float2_to_fp8x2(
             make_float2(x[2] * scale, x[3] * scale), __NV_SATFINITE, k)
             << 16;
}

/* The scale of this cast: delayed, the roll's; current, fp8_scale_rule of
 * the amax the amax pass recorded (*bad: it was not finite). */
static __device__ float cast_scale(const fp8_cast_args &a, bool *bad) {
  *bad = false;
  if (a.d_scale) return *a.d_scale;
  int outcome;
  float scale = fp8_scale_rule(a.d_meta->amax, fp8_max_finite(a.format),
                               a.d_meta->scale, &outcome);
  *bad = outcome == FP8_SCALE_BAD;
  return scale;
}

/* The row sums of tile (tx, ty)'s columns (s: this thread's 8 rows over
 * its four columns), over the block in a fixed order, into the partials of
 * column tile ty: each thread's sums through shared memory, then four
 * threads a row, eight column quads each, and two shuffles (three
 * shuffles for each of a thread's 8 rows took 94 instructions a thread
 * per tile, session 17's SASS). Every thread calls it; it synchronises the
 * block once, after its stores to shared memory, and leaves `sums` read:
 * the caller synchronises before the next call. */
static __device__ __forceinline__ void write_partials(const fp8_cast_args &a,
                                                      const float s[8], int rg,
                                                      int cq, int tx, int ty) {
  /* [row of the tile][column quad]: the padding word makes both the
   * stores (a warp's: 4 rows, 8 quads) and the loads (8 rows, 4 x 8 quads) fall
   * in 32 banks. */
  __shared__ float sums[CAST_ROWS][COLS / 4 + 1];
#pragma unroll
  for (int i = 0; i < 8; i++)
    sums[8 * rg + i][cq] = s[i];
  __syncthreads();
  int line = threadIdx.x / 4, first = 8 * (threadIdx.x % 4);
  float total = sums[line][first];
#pragma unroll
  for (int q = 1; q < 8; q++)
    total += sums[line][first + q];
  total += __shfl_xor_sync(0xFFFFFFFFu, total, 1);
  total += __shfl_xor_sync(0xFFFFFFFFu, total, 2);
  int row = tx * CAST_ROWS + line;
  if (threadIdx.x % 4 == 0 && row < a.rows)
    a.d_partials[(size_t)ty * a.rows + row] = total;
}

/* Tile (tx, ty)'s four columns of this thread (rg, cq) into raw: rows
 * r .. r + 7 of columns c0 .. c0 + 3, each column's addresses a stride
 * on from the first's. */
template <typename S, fp8_mask MASK>
__device__ __forceinline__ void load_tile(column_raw<S> raw[4],
                                          const fp8_cast_args &a, int tx,
                                          int ty, int rg, int cq) {
  int r = tx * CAST_ROWS + 8 * rg, c0 = ty * COLS + 4 * cq;
  const S *src = (const S *)a.d_src + (size_t)c0 * a.ld_src + r;
  /* RELU: the byte of rows r .. r + 7; GELU: z's 8 values; else none */
  size_t aux_stride =
      MASK == FP8_MASK_RELU ? a.aux_ld / 8 : 2 * (size_t)a.aux_ld;
  const uint8_t *aux = MASK == FP8_MASK_NONE
                           ? NULL
                           : (const uint8_t *)a.d_aux + c0 * aux_stride +
                                 (MASK == FP8_MASK_RELU ? r / 8 : 2 * r);
#pragma unroll
  for (int j = 0; j < 4; j++)
    load_column<S, MASK>(raw[j], src + (size_t)j * a.ld_src,
                         MASK == FP8_MASK_NONE ? aux : aux + j * aux_stride,
                         r < a.rows && c0 + j < a.cols);
}

/* Bit 7 of each byte of a word of four codes: that code is not ±0. */
static __device__ __forceinline__ uint32_t nonzero_codes(uint32_t w) {
  return ((w & 0x7F7F7F7Fu) + 0x7F7F7F7Fu) & 0x80808080u;
}

/* How many of a thread's 32 values of a tile are ±0 (NaN is not). A
 * BF16 source's values are BF16 values (GELU's rounded to BF16), so two
 * are packed and compared at once and the count is kept in BF16 (exact to
 * 256): 1.5 instructions a value against 3 for a float compare and a
 * conditional add (session 17's SASS). */
template <typename S>
__device__ __forceinline__ unsigned zeros(const float (*x)[8]) {
  unsigned n = 0;
#pragma unroll
  for (int j = 0; j < 4; j++)
#pragma unroll
    for (int i = 0; i < 8; i++)
      n += x[j][i] == 0.0f;
  return n;
}
template <>
__device__ __forceinline__ unsigned zeros<__nv_bfloat16>(const float (*x)[8]) {
  const __nv_bfloat162 zero = __float2bfloat162_rn(0.0f);
  __nv_bfloat162 n = zero;
#pragma unroll
  for (int j = 0; j < 4; j++)
#pragma unroll
    for (int i = 0; i < 8; i += 2)
      n = __hadd2(n, __heq2(__floats2bfloat162_rn(x[j][i], x[j][i + 1]), zero));
  return (unsigned)(__low2float(n) + __high2float(n));
}

/* What a block's casts lost (fp8_meta's counts) over its tiles. Past the
 * matrix x is 0 and its code 0: the two zero counts cancel there. */
typedef struct cast_lost {
  unsigned zero_codes, zero_x, saturated, nan;
} cast_lost;

/* Tile (tx, ty) of the cast from its decoded values x (this thread's
 * rows r .. r + 7 of columns c0 .. c0 + 3), their row sums, amax and NaN
 * flag: the codes at `scale` in both layouts, what they lost added to
 * *lost, the partial sums. Every thread calls it; it ends with the block
 * synchronised and tile_t free again. */
template <typename S>
__device__ __forceinline__ void
store_tile(const fp8_cast_args &a, uint8_t (*tile_t)[COLS], const float (*x)[8],
           const float sum[8], float amax, bool any_nan, float scale, int rg,
           int cq, int tx, int ty, cast_lost *lost) {
  int r = tx * CAST_ROWS + 8 * rg, c0 = ty * COLS + 4 * cq;
  __nv_fp8_interpretation_t kind = fp8_kind(a.format);
  uint2 w[4];           /* per column: rows 0-3, rows 4-7 */
  uint32_t nonzero = 0; /* bit 7 - k of a byte: that code of word k is not ±0 */
#pragma unroll
  for (int j = 0; j < 4; j++) {
    w[j].x = pack4(&x[j][0], scale, kind);
    w[j].y = pack4(&x[j][4], scale, kind);
    nonzero += nonzero_codes(w[j].x) >> 2 * j;
    nonzero += nonzero_codes(w[j].y) >> (2 * j + 1);
    if (a.d_out && r < a.rows && c0 + j < a.cols)
      *(uint2 *)(a.d_out + (size_t)(c0 + j) * a.ld_out + r) = w[j];
  }
  lost->zero_codes += 32 - __popc(nonzero);
  lost->zero_x += zeros<S>(x);
  /* Saturation and NaN: only where the amax or a sum says they may be. */
  if (fp8_saturates(amax * scale, a.format) || any_nan)
#pragma unroll
    for (int j = 0; j < 4; j++)
#pragma unroll
      for (int i = 0; i < 8; i++) {
        lost->saturated += fp8_saturates(x[j][i] * scale, a.format);
        lost->nan += isnan(x[j][i] * scale) ? 1u : 0u;
      }
  if (a.d_out_t) {
    uint32_t lo[4] = {w[0].x, w[1].x, w[2].x, w[3].x};
    uint32_t hi[4] = {w[0].y, w[1].y, w[2].y, w[3].y};
    fp8_stage_words<CAST_ROWS>(tile_t, lo, 8 * rg, cq);
    fp8_stage_words<CAST_ROWS>(tile_t, hi, 8 * rg + 4, cq);
  }
  /* Each synchronises once: then tile_t is complete. */
  if (a.d_partials)
    write_partials(a, sum, rg, cq, tx, ty);
  else
    __syncthreads();
  if (a.d_out_t)
    fp8_write_transposed<CAST_ROWS>(a.d_out_t, a.ld_out_t, tile_t, a.rows,
                                    a.cols, tx, ty);
  __syncthreads(); /* tile_t and the sums read: the next tile may write */
}

/* The cast (AMAX_ONLY: current scaling's amax pass) of tiles blockIdx.x,
 * + gridDim.x, ... of `tiles` (tiles_x a column of tiles), the next
 * tile's loads issued as soon as this one's are decoded. The amax and
 * counts are the block's over its tiles; sums, codes and partials are
 * per tile. Four blocks per SM (128 registers: the next tile's loads live
 * beside this one's values; at five, 96, the ReLU cast spills 112 bytes
 * on sm_90: with two stagings it ran 1.5x as long, session 17's call B),
 * GELU's (with its z) three (at four it
 * spilled), the amax pass six (80). FP8 runs on sm_89 and later; on
 * sm_90 the FP32 cast (a network's weights, once) spills 32 bytes. The
 * other orders, stagings and prefetches tried, with their times:
 * docs/performance.md, "FP8" (sessions 5 and 15-17). */
template <typename S, fp8_mask MASK, bool AMAX_ONLY>
__global__ void __launch_bounds__(THREADS, AMAX_ONLY               ? 6
                                           : MASK == FP8_MASK_GELU ? 3
                                                                   : 4)
    fp8_cast_kernel(fp8_cast_args a, int tiles_x, int tiles) {
  gpu_wait_previous();
  /* [source row of the tile][column, chunks swizzled: fp8_tile_at] */
  __shared__ __align__(16) uint8_t tile_t[CAST_ROWS][COLS];
  int rg = threadIdx.x % 4, cq = threadIdx.x / 4;
  bool bad = false;
  float scale = AMAX_ONLY ? 1.0f : cast_scale(a, &bad);
  float block_amax = 0.0f;
  cast_lost lost = {0, 0, 0, 0};
  /* Tile t is (t % tiles_x, t / tiles_x); t steps by gridDim.x, so
   * (tx, ty) steps by (step_x, step_y), with a carry. */
  int step_x = (int)gridDim.x % tiles_x, step_y = (int)gridDim.x / tiles_x;
  int tx = (int)blockIdx.x % tiles_x, ty = (int)blockIdx.x / tiles_x;
  column_raw<S> raw[4];
  load_tile<S, MASK>(raw, a, tx, ty, rg, cq);
  for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
    float x[4][8]; /* [column][row]; 0 past the matrix */
#pragma unroll
    for (int j = 0; j < 4; j++)
      decode_column<S, MASK>(x[j], raw[j]);
    int nx = tx + step_x, ny = ty + step_y + (tx + step_x >= tiles_x);
    nx -= nx >= tiles_x ? tiles_x : 0;
    if (t + (int)gridDim.x < tiles) load_tile<S, MASK>(raw, a, nx, ny, rg, cq);
    float amax = 0.0f, sum[8];
    bool any_nan = false;
#pragma unroll
    for (int i = 0; i < 8; i++) {
      sum[i] = x[0][i] + x[1][i] + x[2][i] + x[3][i];
      any_nan = any_nan || isnan(sum[i]);
#pragma unroll
      for (int j = 0; j < 4; j++)
        amax = fmaxf(amax, fabsf(x[j][i])); /* a NaN never wins, inf does */
    }
    block_amax = fmaxf(block_amax, amax);
    if (!AMAX_ONLY)
      store_tile<S>(a, tile_t, x, sum, amax, any_nan, scale, rg, cq, tx, ty,
                    &lost);
    tx = nx;
    ty = ny;
  }
  fp8_block_record(a.d_meta, AMAX_ONLY || a.d_scale != NULL, block_amax,
                   lost.saturated, lost.zero_codes - lost.zero_x, lost.nan);
  if (!AMAX_ONLY && blockIdx.x == 0 && threadIdx.x == 0) {
    a.d_meta->scale = scale;
    a.d_meta->scale_inv = 1.0f / scale;
    a.d_meta->casts += 1;
    a.d_meta->bad_amax += bad ? 1 : 0;
  }
}

/* Blocks for `tiles` tiles of `kernel`: as many as the GPU holds at once
 * (asked once a kernel: gpu_early_places; three runtime queries a launch
 * before session 17, each step's under --no-graphs) or a.blocks, when set
 * and fewer, then fewer where that takes the same
 * number of tiles a block (1000 tiles over an H200's 528 places: 500
 * blocks of 2, not 528 of 1 or 2). */
static cudaError_t cast_blocks(const void *kernel, int tiles, int cap,
                               gpu_early_cache *early, unsigned *blocks) {
  int places;
  cudaError_t e =
      (cudaError_t)gpu_early_places(early, kernel, THREADS, &places);
  if (e != cudaSuccess) return e;
  if (cap > 0 && cap < places) places = cap;
  int rounds = (tiles + places - 1) / places;
  *blocks = (unsigned)((tiles + rounds - 1) / rounds);
  return cudaSuccess;
}

/* The cast's kernel for the source type and mask. */
template <bool AMAX_ONLY>
static cudaError_t launch_cast(const fp8_cast_args &a, gpu_early_cache *early,
                               cudaStream_t stream) {
  int tiles_x = (a.rows + CAST_ROWS - 1) / CAST_ROWS;
  int tiles = tiles_x * fp8_cast_tiles(fp8_round16(a.cols));
  void (*kernel)(fp8_cast_args, int, int) =
      a.src_type == LT_DTYPE_F32
          ? fp8_cast_kernel<float, FP8_MASK_NONE, AMAX_ONLY>
      : a.mask == FP8_MASK_RELU
          ? fp8_cast_kernel<__nv_bfloat16, FP8_MASK_RELU, AMAX_ONLY>
      : a.mask == FP8_MASK_GELU
          ? fp8_cast_kernel<__nv_bfloat16, FP8_MASK_GELU, AMAX_ONLY>
          : fp8_cast_kernel<__nv_bfloat16, FP8_MASK_NONE, AMAX_ONLY>;
  unsigned blocks;
  cudaError_t e =
      cast_blocks((const void *)kernel, tiles, a.blocks, early, &blocks);
  if (e != cudaSuccess) return e;
  return gpu_launch(early, kernel, dim3(blocks), dim3(THREADS), stream, a,
                    tiles_x, tiles);
}

/* NULL when `a` meets the kernel's requirements (fp8_cast.h), else the
 * one it breaks. */
static const char *cast_refusal(const fp8_cast_args *a) {
  size_t size = a->src_type == LT_DTYPE_F32 ? 4 : 2;
  if (a->src_type != LT_DTYPE_BF16 && a->src_type != LT_DTYPE_F32)
    return "a BF16 or FP32 source";
  if (a->mask != FP8_MASK_NONE && a->src_type != LT_DTYPE_BF16)
    return "a BF16 source with a mask";
  if (a->rows < 16 || a->rows % 16 || a->cols < 1 || !a->d_meta)
    return "rows a multiple of 16, cols >= 1 and a scaling state";
  if (a->blocks < 0) return "blocks >= 0 (0: as many as the GPU holds)";
  if (!fp8_aligned16(a->d_src) || a->ld_src < a->rows ||
      (size_t)a->ld_src * size % 16)
    return "a 16-byte aligned source with 16-byte columns (ld_src)";
  if (a->mask == FP8_MASK_RELU &&
      (!fp8_aligned16(a->d_aux) || a->aux_ld % 128 || a->aux_ld < a->rows))
    return "a ReLU mask with aux_ld a multiple of 128 bits, >= rows";
  if (a->mask == FP8_MASK_GELU &&
      (!fp8_aligned16(a->d_aux) || a->aux_ld % 8 || a->aux_ld < a->rows))
    return "a GELU input with aux_ld a multiple of 8, >= rows";
  if (a->d_out &&
      (!fp8_aligned16(a->d_out) || a->ld_out % 16 || a->ld_out < a->rows))
    return "an output with ld_out a multiple of 16, >= rows";
  if (a->d_out_t && (!fp8_aligned16(a->d_out_t) || a->ld_out_t % 16 ||
                     a->ld_out_t < fp8_round16(a->cols)))
    return "a transposed output with ld_out_t a multiple of 16, >= cols";
  return NULL;
}

extern "C" int fp8_cast(const fp8_cast_args *a, gpu_early_cache *early,
                        cudaStream_t stream) {
  const char *broken = cast_refusal(a);
  if (broken) {
    fprintf(stderr,
            "fp8_cast: expected %s, found type %s, mask %d, %d x %d, ld %d, "
            "aux_ld %d, ld_out %d, ld_out_t %d, blocks %d\n",
            broken, lt_dtype_name(a->src_type), (int)a->mask, a->rows, a->cols,
            a->ld_src, a->aux_ld, a->ld_out, a->ld_out_t, a->blocks);
    return -1;
  }
  if (!a->d_scale) {
    /* This cast's own amax: not the max with earlier casts since the
     * last roll. */
    CUDA_CHECK(cudaMemsetAsync(&a->d_meta->amax, 0, sizeof(float), stream));
    CUDA_CHECK(launch_cast<true>(*a, early, stream));
    CUDA_CHECK_KERNEL("fp8_cast_kernel (amax)");
  }
  CUDA_CHECK(launch_cast<false>(*a, early, stream));
  CUDA_CHECK_KERNEL("fp8_cast_kernel");
  return 0;
}
