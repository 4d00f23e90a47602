/* fp8_cast.cu: the FP8 step's kernels (fp8_cast.h): cast, transpose, roll.
 * The cast's tile: FP8_CAST_ROWS (32) rows by FP8_CAST_TILE (128) columns, 128
 * threads; thread t holds rows 8 (t % 4) .. + 7 of columns 4 (t / 4) .. + 3,
 * masks, compares and rounds them two BF16 values an instruction
 * (fp8_cast_load.cuh), stores its codes 8 bytes a column, the transposed via
 * shared memory (fp8_tile.cuh). A block casts tiles t, t + gridDim.x, ...,
 * the next ones' loads in flight, one barrier a tile where shared memory holds
 * two staging buffers; a block's one atomic for the amax, one a count. A
 * kernel per source, mask, format and outputs: no conversion issued for a
 * format it does not write. What each bought: docs/performance.md, "FP8 as a
 * precision of the step". */
#include <stdio.h>

#include "gpu/gpu_check.h"
#include "gpu/gpu_copy_async.cuh"
#include "gpu/gpu_launch.cuh"
#include "layers/fp8_cast.h"
#include "layers/fp8_cast_load.cuh"
#include "layers/fp8_device.cuh"
#include "layers/fp8_tile.cuh"
#include "lt/lt_types.cuh"

enum {
  CAST_ROWS = FP8_CAST_ROWS,
  COLS = FP8_TILE_COLS,
  THREADS = FP8_TILE_THREADS
};

/* Four rows' codes of one column in a word, two values per conversion. */
static __device__ __forceinline__ uint32_t pack4(const float *x, float scale,
                                                 __nv_fp8_interpretation_t k) {
  return (uint32_t)__nv_cvt_float2_to_fp8x2(
             make_float2(x[0] * scale, x[1] * scale), __NV_SATFINITE, k) |
         (uint32_t)__nv_cvt_float2_to_fp8x2(
             make_float2(x[2] * scale, x[3] * scale), __NV_SATFINITE, k)
             << 16;
}

/* The scale of this cast: delayed, the roll's; current, from the amax
 * pass's amax (*bad: it was not finite). */
static __device__ float cast_scale(const fp8_cast_args &a, bool *bad) {
  *bad = false;
  if (a.d_scale) return *a.d_scale;
  int outcome;
  float scale = fp8_scale_rule(a.d_meta->amax, fp8_max_finite(a.format),
                               a.d_meta->scale, &outcome);
  *bad = outcome == FP8_SCALE_BAD;
  return scale;
}

/* Tile (tx, ty)'s row sums (s: this thread's 8 rows, 4 columns), fixed order,
 * into column tile ty's partials: shared memory (buffer `half` of HALVES), 4
 * threads a row, 2 shuffles. All threads call it; it syncs once (with one
 * buffer the caller syncs again before the next call). */
template <int HALVES>
static __device__ __forceinline__ void
write_partials(const fp8_cast_args &a, const float s[8], int rg, int cq, int tx,
               int ty, int half) {
  /* [row of the tile][column quad]; the padding word: no bank conflicts */
  __shared__ float halves[HALVES][CAST_ROWS][COLS / 4 + 1];
  float(*sums)[COLS / 4 + 1] = halves[half];
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

/* Tile t's coordinates to tile t + gridDim.x's, with a carry. */
static __device__ __forceinline__ void next_tile(int *x, int *y, int step_x,
                                                 int step_y, int tiles_x) {
  int nx = *x + step_x;
  *y += step_y + (nx >= tiles_x);
  *x = nx >= tiles_x ? nx - tiles_x : nx;
}

/* Bit 7 of each byte of a word of four codes: that code is not ±0. */
static __device__ __forceinline__ uint32_t nonzero_codes(uint32_t w) {
  return ((w & 0x7F7F7F7Fu) + 0x7F7F7F7Fu) & 0x80808080u;
}

/* A block's losses (fp8_meta's counts); past the matrix the two zero counts
 * cancel. */
typedef struct cast_lost {
  unsigned zero_codes, zero_x, saturated, nan;
} cast_lost;

/* Tile (tx, ty) from this thread's decoded x, row sums, amax, least, zero
 * values (GELU's; else -1: counted here) and NaN flag: codes at `scale` in
 * both layouts (the transposed staged in tile_t, buffer `half` of HALVES),
 * losses into *lost, partial sums. Every thread calls it. With two buffers it
 * syncs once (the next tile writes the others), else twice, tile_t then free.
 */
template <typename S, bool Q, lt_fp8 FMT, int HALVES>
__device__ __forceinline__ void
store_tile(const fp8_cast_args &a, uint8_t (*tile_t)[COLS], int half,
           const float (*x)[8], const float sum[8], float amax, float least,
           int zero_x, bool any_nan, float scale, int rg, int cq, int tx,
           int ty, cast_lost *lost) {
  int r = tx * CAST_ROWS + 8 * rg, c0 = ty * COLS + 4 * cq;
  __nv_fp8_interpretation_t kind = fp8_kind(FMT);
  uint2 w[4]; /* per column: rows 0-3, rows 4-7 */
#pragma unroll
  for (int j = 0; j < 4; j++) {
    w[j].x = pack4(&x[j][0], scale, kind);
    w[j].y = pack4(&x[j][4], scale, kind);
    if (Q && r < a.rows && c0 + j < a.cols)
      *(uint2 *)(a.d_out + (size_t)(c0 + j) * a.ld_out + r) = w[j];
  }
  /* Flushed = zero codes - zero values; none if least * scale > the bound. */
  if (!(least * scale > fp8_flush_bound(FMT))) {
    uint32_t nonzero = 0; /* bit 7 - k of a byte: code of word k not ±0 */
#pragma unroll
    for (int j = 0; j < 4; j++) {
      nonzero += nonzero_codes(w[j].x) >> 2 * j;
      nonzero += nonzero_codes(w[j].y) >> (2 * j + 1);
    }
    lost->zero_codes += 32 - __popc(nonzero);
#pragma unroll
    for (int j = 0; j < 4 && zero_x < 0; j++)
#pragma unroll
      for (int i = 0; i < 8; i++)
        lost->zero_x += x[j][i] == 0.0f;
    lost->zero_x += zero_x < 0 ? 0 : zero_x;
  }
  /* Saturation and NaN: only where the amax or a sum says they may be. */
  if (fp8_saturates(amax * scale, FMT) || any_nan)
#pragma unroll
    for (int j = 0; j < 4; j++)
#pragma unroll
      for (int i = 0; i < 8; i++) {
        lost->saturated += fp8_saturates(x[j][i] * scale, FMT);
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
    write_partials<HALVES>(a, sum, rg, cq, tx, ty, half);
  else
    __syncthreads();
  if (a.d_out_t)
    fp8_write_transposed<CAST_ROWS>(a.d_out_t, a.ld_out_t, tile_t, a.rows,
                                    a.cols, tx, ty);
  if (HALVES == 1) __syncthreads(); /* tile_t, sums read: the next may write */
}

/* The cast (AMAX_ONLY: current scaling's amax pass; Q: codes in the source's
 * layout too; FMT: theirs) of tiles blockIdx.x, + gridDim.x, ... of `tiles`
 * (tiles_x a column of tiles), STAGES - 1 ahead in flight. <= 128 registers (no
 * spill, sm_89 on): four blocks an SM where shared memory holds them (228 KB on
 * the H200; two at 100 KB); the amax pass six. */
template <typename S, fp8_mask MASK, bool AMAX_ONLY, bool Q, lt_fp8 FMT>
__global__ void __launch_bounds__(THREADS, AMAX_ONLY ? 6 : 4)
    fp8_cast_kernel(fp8_cast_args a, int tiles_x, int tiles) {
  if (FP8_ARCH_MISSING) {
    __trap();
    return;
  }
  gpu_wait_previous();
  /* [half][source row of the tile][column, chunks swizzled: fp8_tile_at],
   * two halves (and two of write_partials' sums) where the block's static
   * shared memory, at most 48 KB, holds them beside the ring */
  enum {
    HALF_BYTES = CAST_ROWS * (COLS + 4 * (COLS / 4 + 1)),
    HALVES = sizeof(fp8_cast_ring<S, MASK>) + 2 * HALF_BYTES <= 48 * 1024 - 64
                 ? 2
                 : 1
  };
  __shared__ __align__(16) uint8_t tile_t[HALVES][CAST_ROWS][COLS];
  typedef fp8_cast_ring<S, MASK> ring_t;
  __shared__ ring_t ring;
  int rg = threadIdx.x % 4, cq = threadIdx.x / 4;
  bool bad = false;
  float scale = AMAX_ONLY ? 1.0f : cast_scale(a, &bad);
  float block_amax = 0.0f;
  cast_lost lost = {0, 0, 0, 0};
  /* Tile t: (t % tiles_x, t / tiles_x); load lt, at (lx, ly), STAGES - 1 on. */
  int step_x = (int)gridDim.x % tiles_x, step_y = (int)gridDim.x / tiles_x;
  int tx = (int)blockIdx.x % tiles_x, ty = (int)blockIdx.x / tiles_x;
  int lt = blockIdx.x, lx = tx, ly = ty, use = 0, half = 0;
  for (int s = 0; s < ring_t::STAGES - 1; s++) {
    if (lt < tiles) fp8_load_tile<S, MASK>(ring, s, a, lx, ly, rg, cq);
    gpu_copies_commit();
    lt += gridDim.x;
    next_tile(&lx, &ly, step_x, step_y, tiles_x);
  }
  for (int t = blockIdx.x; t < tiles; t += gridDim.x) {
    /* the stage the last tile was read from (its mask words by the quad) */
    int fill = use == 0 ? ring_t::STAGES - 1 : use - 1;
    if (MASK == FP8_MASK_RELU) __syncwarp(); /* the mask words read */
    if (lt < tiles) fp8_load_tile<S, MASK>(ring, fill, a, lx, ly, rg, cq);
    gpu_copies_commit();
    lt += gridDim.x;
    next_tile(&lx, &ly, step_x, step_y, tiles_x);
    gpu_copies_wait<ring_t::STAGES - 1>();
    if (MASK == FP8_MASK_RELU) __syncwarp(); /* the mask words copied */
    float x[4][8], least, amax; /* [column][row]; 0 past the matrix */
    int zero_x;
    fp8_decode_tile<S, MASK>(x, &least, &amax, &zero_x, ring, use, rg);
    use = use + 1 == ring_t::STAGES ? 0 : use + 1;
    float sum[8];
    bool any_nan = false;
#pragma unroll
    for (int i = 0; i < 8; i++) {
      sum[i] = x[0][i] + x[1][i] + x[2][i] + x[3][i];
      any_nan = any_nan || isnan(sum[i]);
    }
    block_amax = fmaxf(block_amax, amax);
    if (!AMAX_ONLY)
      store_tile<S, Q, FMT, HALVES>(a, tile_t[half], half, x, sum, amax, least,
                                    zero_x, any_nan, scale, rg, cq, tx, ty,
                                    &lost);
    half = HALVES == 2 ? half ^ 1 : 0;
    next_tile(&tx, &ty, step_x, step_y, tiles_x);
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

/* Blocks for `tiles`: as many as the GPU holds (gpu_early_places) or `cap` if
 * fewer, then fewer at the same tiles a block (1000 over 528: 500 of 2). */
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

typedef void (*cast_fn)(fp8_cast_args, int, int);

/* The cast's kernel for the source type, mask, outputs and format (the amax
 * pass: one a source, no outputs). */
template <bool AMAX_ONLY, bool Q, lt_fp8 FMT>
static cast_fn kernel_of(const fp8_cast_args &a) {
  return a.src_type == LT_DTYPE_F32
             ? fp8_cast_kernel<float, FP8_MASK_NONE, AMAX_ONLY, Q, FMT>
         : a.mask == FP8_MASK_RELU
             ? fp8_cast_kernel<__nv_bfloat16, FP8_MASK_RELU, AMAX_ONLY, Q, FMT>
         : a.mask == FP8_MASK_GELU
             ? fp8_cast_kernel<__nv_bfloat16, FP8_MASK_GELU, AMAX_ONLY, Q, FMT>
             : fp8_cast_kernel<__nv_bfloat16, FP8_MASK_NONE, AMAX_ONLY, Q, FMT>;
}

static cudaError_t launch_cast(const fp8_cast_args &a, bool amax_only,
                               gpu_early_cache *early, cudaStream_t stream) {
  int tiles_x = (a.rows + CAST_ROWS - 1) / CAST_ROWS;
  int tiles = tiles_x * fp8_cast_tiles(fp8_round16(a.cols));
  bool e5m2 = a.format == LT_FP8_E5M2;
  cast_fn kernel = amax_only ? kernel_of<true, false, LT_FP8_E4M3>(a)
                   : a.d_out ? (e5m2 ? kernel_of<false, true, LT_FP8_E5M2>(a)
                                     : kernel_of<false, true, LT_FP8_E4M3>(a))
                   : e5m2    ? kernel_of<false, false, LT_FP8_E5M2>(a)
                             : kernel_of<false, false, LT_FP8_E4M3>(a);
  unsigned blocks;
  cudaError_t e =
      cast_blocks((const void *)kernel, tiles, a.blocks, early, &blocks);
  if (e != cudaSuccess) return e;
  return gpu_launch(early, kernel, dim3(blocks), dim3(THREADS), stream, a,
                    tiles_x, tiles);
}

extern "C" int fp8_cast(const fp8_cast_args *a, gpu_early_cache *early,
                        cudaStream_t stream) {
  const char *broken = fp8_cast_refusal(a);
  if (broken) {
    fprintf(stderr,
            "fp8_cast: expected %s, found type %s, mask %d, %d x %d, ld %d, "
            "aux_ld %d, ld_out %d, ld_out_t %d, blocks %d\n",
            broken, lt_dtype_name(a->src_type), (int)a->mask, a->rows, a->cols,
            a->ld_src, a->aux_ld, a->ld_out, a->ld_out_t, a->blocks);
    return -1;
  }
  if (!a->d_scale) {
    /* This cast's own amax, not the max with earlier casts'. */
    CUDA_CHECK(cudaMemsetAsync(&a->d_meta->amax, 0, sizeof(float), stream));
    CUDA_CHECK(launch_cast(*a, true, early, stream));
    CUDA_CHECK_KERNEL("fp8_cast_kernel (amax)");
  }
  CUDA_CHECK(launch_cast(*a, false, early, stream));
  CUDA_CHECK_KERNEL("fp8_cast_kernel");
  return 0;
}

/* The transpose: the cast's tile at 64 rows, 16-code loads. */
enum { TRANSPOSE_ROWS = 64 };

__global__ void __launch_bounds__(THREADS)
    fp8_transpose_kernel(uint8_t *out_t, int ld_t, const uint8_t *in, int ld,
                         int rows, int cols) {
  gpu_wait_previous();
  __shared__ __align__(16) uint8_t tile_t[TRANSPOSE_ROWS][COLS];
  int rg = threadIdx.x % 4, cq = threadIdx.x / 4;
  int r = blockIdx.x * TRANSPOSE_ROWS + 16 * rg,
      c0 = blockIdx.y * COLS + 4 * cq;
  uint4 w[4];
#pragma unroll
  for (int j = 0; j < 4; j++)
    w[j] = r < rows && c0 + j < cols
               ? *(const uint4 *)(in + (size_t)(c0 + j) * ld + r)
               : make_uint4(0, 0, 0, 0);
#pragma unroll
  for (int k = 0; k < 4; k++) {
    uint32_t c[4] = {((const uint32_t *)&w[0])[k], ((const uint32_t *)&w[1])[k],
                     ((const uint32_t *)&w[2])[k],
                     ((const uint32_t *)&w[3])[k]};
    fp8_stage_words<TRANSPOSE_ROWS>(tile_t, c, 16 * rg + 4 * k, cq);
  }
  __syncthreads();
  fp8_write_transposed<TRANSPOSE_ROWS>(out_t, ld_t, tile_t, rows, cols,
                                       blockIdx.x, blockIdx.y);
}

extern "C" int fp8_transpose(uint8_t *d_out_t, int ld_out_t,
                             const uint8_t *d_in, int ld_in, int rows, int cols,
                             gpu_early_cache *early, cudaStream_t stream) {
  if (rows < 16 || rows % 16 || cols < 1 || ld_in % 16 || ld_in < rows ||
      ld_out_t % 16 || ld_out_t < fp8_round16(cols) || !fp8_aligned16(d_in) ||
      !fp8_aligned16(d_out_t)) {
    fprintf(stderr,
            "fp8_transpose: expected rows a multiple of 16, 16-byte aligned "
            "matrices and leading dimensions (ld_in >= rows, ld_out_t >= "
            "cols rounded up to 16), found %d x %d, ld %d, ld_t %d\n",
            rows, cols, ld_in, ld_out_t);
    return -1;
  }
  dim3 grid((unsigned)((rows + TRANSPOSE_ROWS - 1) / TRANSPOSE_ROWS),
            (unsigned)fp8_cast_tiles(fp8_round16(cols)));
  CUDA_CHECK(gpu_launch(early, fp8_transpose_kernel, grid, dim3(THREADS),
                        stream, d_out_t, ld_out_t, d_in, ld_in, rows, cols));
  CUDA_CHECK_KERNEL("fp8_transpose_kernel");
  return 0;
}

__global__ void fp8_roll_kernel(fp8_roll_args a) {
  gpu_wait_previous();
  fp8_roll_block(a);
}

extern "C" int fp8_roll(const fp8_roll_args *a, gpu_early_cache *early,
                        cudaStream_t stream) {
  CUDA_CHECK(gpu_launch(early, fp8_roll_kernel, dim3(1), dim3(64), stream, *a));
  CUDA_CHECK_KERNEL("fp8_roll_kernel");
  return 0;
}
