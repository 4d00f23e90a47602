/* fp8_cast.cu: the FP8 step's kernels (see fp8_cast.h). */
#include <stdio.h>

#include "gpu/gpu_check.h"
#include "gpu/gpu_launch.cuh"
#include "layers/fp8_cast.h"
#include "layers/fp8_device.cuh"
#include "lt/lt_gelu.h"
#include "lt/lt_types.cuh"

/* A tile: FP8_CAST_TILE rows by FP8_CAST_TILE columns, 256 threads (the
 * split of work among them: below, "Thread t of a tile"). */
enum { TILE = FP8_CAST_TILE, THREADS = FP8_THREADS };

extern "C" int fp8_cast_tiles(int cols) {
  return (cols + TILE - 1) / TILE;
}

/* Element (r, c) of the source, masked as the args say (GELU: rounded to
 * the source type, the value a 16-bit buffer would hold). */
template <typename S>
__device__ float load_masked(const fp8_cast_args &a, int r, int c) {
  const S *src = (const S *)a.d_src;
  float x = lt_to_float(src[(size_t)c * a.ld_src + r]);
  if (a.mask == FP8_MASK_RELU) {
    const uint8_t *bits = (const uint8_t *)a.d_aux;
    uint8_t byte = bits[(size_t)c * (a.aux_ld / 8) + r / 8];
    x = (byte >> (r % 8)) & 1 ? x : 0.0f;
  } else if (a.mask == FP8_MASK_GELU) {
    const __nv_bfloat16 *z = (const __nv_bfloat16 *)a.d_aux;
    float g = x * lt_gelu_grad(lt_to_float(z[(size_t)c * a.aux_ld + r]));
    x = lt_to_float(lt_from_float<S>(g));
  }
  return x;
}

/* Four 16-bit or FP32 values in one load. */
template <typename S> struct __align__(4 * sizeof(S)) quad {
  S v[4];
};

/* Rows r .. r + 3 of column c, masked: one load of the source (and of
 * the GELU input) when `vec`, else four. */
template <typename S, bool VEC>
__device__ void load_quad(float x[4], const fp8_cast_args &a, int r, int c) {
  if (VEC && r + 3 < a.rows) {
    quad<S> q =
        *(const quad<S> *)((const S *)a.d_src + (size_t)c * a.ld_src + r);
    for (int i = 0; i < 4; i++)
      x[i] = lt_to_float(q.v[i]);
    if (a.mask == FP8_MASK_RELU) {
      uint8_t byte =
          ((const uint8_t *)a.d_aux)[(size_t)c * (a.aux_ld / 8) + r / 8];
      for (int i = 0; i < 4; i++)
        x[i] = (byte >> ((r + i) % 8)) & 1 ? x[i] : 0.0f;
    } else if (a.mask == FP8_MASK_GELU) {
      quad<__nv_bfloat16> z =
          *(const quad<__nv_bfloat16> *)((const __nv_bfloat16 *)a.d_aux +
                                         (size_t)c * a.aux_ld + r);
      for (int i = 0; i < 4; i++)
        x[i] = lt_to_float(
            lt_from_float<S>(x[i] * lt_gelu_grad(lt_to_float(z.v[i]))));
    }
    return;
  }
  for (int i = 0; i < 4; i++)
    x[i] = r + i < a.rows ? load_masked<S>(a, r + i, c) : 0.0f;
}

/* Thread t of a tile holds rows 4 (t % 16) .. + 3 of columns t / 16 + 16 i,
 * i < 4: 16 elements, loaded four rows at a time. */
enum { QUADS = TILE / 4, COLUMN_STEP = THREADS / QUADS };

/* The amax pass of current scaling. */
template <typename S, bool VEC>
__global__ void fp8_amax_kernel(fp8_cast_args a) {
  gpu_wait_previous();
  int r = blockIdx.x * TILE + 4 * (threadIdx.x % QUADS);
  float amax = 0.0f;
  for (int i = 0; i < TILE / COLUMN_STEP; i++) {
    int c = blockIdx.y * TILE + threadIdx.x / QUADS + COLUMN_STEP * i;
    if (r >= a.rows || c >= a.cols) continue;
    float x[4];
    load_quad<S, VEC>(x, a, r, c);
    for (int k = 0; k < 4; k++)
      amax = fmaxf(amax, fabsf(x[k]));
  }
  fp8_block_record(a.d_meta, amax, 0, 0, 0);
}

/* The general cast: any leading dimension, any rows, element by element
 * (the fast kernel below takes the aligned cases the step runs). Thread t
 * holds rows 4 (t % 16) .. + 3 of columns t / 16 + 16 i, i < 4; the codes
 * pass through shared memory for the transposed copy. */
template <typename S> __global__ void fp8_cast_kernel(fp8_cast_args a) {
  gpu_wait_previous();
  __shared__ __align__(4) uint8_t tile[TILE][TILE + 4]; /* [column][row] */
  __shared__ float sums[COLUMN_STEP][TILE];
  fp8_meta *meta = a.d_meta;
  float max_finite = a.format == FP8_FORMAT_E5M2 ? 57344.0f : 448.0f;
  bool bad;
  float scale = fp8_scale_of(fp8_reference_amax(meta, a.current), max_finite,
                             meta->scale, &bad);
  int rq = 4 * (threadIdx.x % QUADS), cg = threadIdx.x / QUADS;
  int r = blockIdx.x * TILE + rq;
  float amax = 0.0f, sum[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  unsigned saturated = 0, flushed = 0, nan = 0;
  for (int i = 0; i < TILE / COLUMN_STEP; i++) {
    int cl = cg + COLUMN_STEP * i, c = blockIdx.y * TILE + cl;
    uint32_t packed = 0;
    for (int k = 0; k < 4 && r + k < a.rows && c < a.cols; k++) {
      float x = load_masked<S>(a, r + k, c);
      if (a.d_masked)
        ((S *)a.d_masked)[(size_t)c * a.ld_src + r + k] = lt_from_float<S>(x);
      sum[k] += x;
      amax = fmaxf(amax, fabsf(x));
      float p = x * scale;
      uint8_t q = fp8_encode_device(p, a.format);
      saturated += fp8_saturates(p, a.format);
      nan += isnan(p) ? 1u : 0u;
      flushed += x != 0.0f && isfinite(x) && (q & 0x7F) == 0;
      packed |= (uint32_t)q << (8 * k);
      if (a.d_out) a.d_out[(size_t)c * a.ld_out + r + k] = q;
    }
    *(uint32_t *)&tile[cl][rq] = packed;
  }
  for (int k = 0; k < 4; k++)
    sums[cg][rq + k] = sum[k];
  /* ends synchronised: the shared tile is complete */
  fp8_block_record(meta, amax, saturated, flushed, nan);
  if (a.d_partials && threadIdx.x < TILE) {
    int row = blockIdx.x * TILE + threadIdx.x;
    if (row < a.rows) {
      float s = sums[0][threadIdx.x];
      for (int g = 1; g < COLUMN_STEP; g++)
        s += sums[g][threadIdx.x];
      a.d_partials[(size_t)blockIdx.y * a.rows + row] = s;
    }
  }
  if (a.d_out_t) {
    /* Now thread t writes columns 4 (t % 16) .. + 3 of rows t / 16 + 16 i
     * of the transposed copy. */
    int cq = 4 * (threadIdx.x % QUADS);
    int c = blockIdx.y * TILE + cq;
    for (int i = 0; i < TILE / COLUMN_STEP; i++) {
      int rl = threadIdx.x / QUADS + COLUMN_STEP * i,
          rr = blockIdx.x * TILE + rl;
      if (rr >= a.rows) continue;
      uint8_t *out = a.d_out_t + (size_t)rr * a.ld_out_t + c;
      for (int k = 0; k < 4 && c + k < a.cols; k++)
        out[k] = tile[cq + k][rl];
    }
  }
  if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0) {
    meta->scale = scale;
    meta->scale_inv = 1.0f / scale;
    meta->casts += 1;
    meta->bad_amax += bad ? 1 : 0;
  }
}

/* The fast cast (fp8_cast picks it when every access can be vectorised and
 * rows is a multiple of 4), specialised per mask. Thread t of the 64 x 64
 * tile owns a 4 x 4 block: rows 4 (t % 16) .. + 3 of columns 4 (t / 16)
 * .. + 3. Per column one 8- or 16-byte load (a warp: two columns of 128
 * contiguous bytes in BF16), two values per conversion, the four codes of
 * the column one 4-byte store; the 4 x 4 block of codes transposed in
 * registers (byte permutes), then through shared memory so that the
 * transposed copy leaves in 16-byte stores, 64 contiguous bytes per row.
 * Measured on the H200 (ncu): the first version, one column of 16 and
 * byte-wise transposes, executed 59 instructions per element. */
template <typename S, fp8_mask MASK>
__global__ void fp8_cast_fast_kernel(fp8_cast_args a) {
  gpu_wait_previous();
  __shared__ uint32_t tile_t[TILE][TILE / 4 + 1]; /* [row][column quad] */
  __shared__ float sums[TILE / 4][TILE];
  __shared__ float scale_shared;
  __shared__ bool bad_shared;
  fp8_meta *meta = a.d_meta;
  if (threadIdx.x == 0) {
    bool bad;
    float max_finite = a.format == FP8_FORMAT_E5M2 ? 57344.0f : 448.0f;
    scale_shared = fp8_scale_of(fp8_reference_amax(meta, a.current), max_finite,
                                meta->scale, &bad);
    bad_shared = bad;
  }
  __syncthreads();
  float scale = scale_shared;
  __nv_fp8_interpretation_t kind =
      a.format == FP8_FORMAT_E5M2 ? __NV_E5M2 : __NV_E4M3;
  int rq = 4 * (threadIdx.x % 16), cq = 4 * (threadIdx.x / 16);
  int r = blockIdx.x * TILE + rq, c0 = blockIdx.y * TILE + cq;
  bool rows_ok = r < a.rows; /* rows is a multiple of 4: all four or none */
  float x[4][4];             /* [column][row] */
  for (int j = 0; j < 4; j++) {
    int c = c0 + j;
    if (!rows_ok || c >= a.cols) continue;
    quad<S> q =
        *(const quad<S> *)((const S *)a.d_src + (size_t)c * a.ld_src + r);
    for (int k = 0; k < 4; k++)
      x[j][k] = lt_to_float(q.v[k]);
    if (MASK == FP8_MASK_RELU) {
      unsigned nib =
          ((const uint8_t *)a.d_aux)[(size_t)c * (a.aux_ld / 8) + r / 8] >>
          (r % 8);
      for (int k = 0; k < 4; k++)
        x[j][k] = (nib >> k) & 1 ? x[j][k] : 0.0f;
    } else if (MASK == FP8_MASK_GELU) {
      quad<__nv_bfloat16> z =
          *(const quad<__nv_bfloat16> *)((const __nv_bfloat16 *)a.d_aux +
                                         (size_t)c * a.aux_ld + r);
      for (int k = 0; k < 4; k++)
        x[j][k] = lt_to_float(
            lt_from_float<S>(x[j][k] * lt_gelu_grad(lt_to_float(z.v[k]))));
    }
  }
  float amax = 0.0f, sum[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  unsigned zero_codes = 0, zero_x = 0, saturated = 0, nan = 0;
  uint32_t w[4] = {0, 0, 0, 0}; /* the codes of each column */
  for (int j = 0; j < 4; j++) {
    int c = c0 + j;
    if (!rows_ok || c >= a.cols) continue;
    float *v = x[j];
    w[j] = (uint32_t)__nv_cvt_float2_to_fp8x2(
               make_float2(v[0] * scale, v[1] * scale), __NV_SATFINITE, kind) |
           (uint32_t)__nv_cvt_float2_to_fp8x2(
               make_float2(v[2] * scale, v[3] * scale), __NV_SATFINITE, kind)
               << 16;
    for (int k = 0; k < 4; k++) {
      sum[k] += v[k];
      amax = fmaxf(amax, fabsf(v[k]));
      zero_x += v[k] == 0.0f;
    }
    zero_codes += __popc(__vcmpeq4(w[j] & 0x7F7F7F7Fu, 0u)) / 8;
    if (a.d_out) *(uint32_t *)(a.d_out + (size_t)c * a.ld_out + r) = w[j];
    if (MASK != FP8_MASK_NONE && a.d_masked) {
      quad<S> m;
      for (int k = 0; k < 4; k++)
        m.v[k] = lt_from_float<S>(v[k]);
      *(quad<S> *)((S *)a.d_masked + (size_t)c * a.ld_src + r) = m;
    }
  }
  /* Saturation and NaN: only where the amax or a sum says they may be. */
  bool odd = fp8_saturates(amax * scale, a.format);
  for (int k = 0; k < 4; k++)
    odd = odd || isnan(sum[k]);
  if (odd)
    for (int j = 0; j < 4; j++)
      for (int k = 0; k < 4 && rows_ok && c0 + j < a.cols; k++) {
        float p = x[j][k] * scale;
        saturated += fp8_saturates(p, a.format);
        nan += isnan(p) ? 1u : 0u;
      }
  if (a.d_out_t) {
    uint32_t t0 = __byte_perm(w[0], w[1], 0x5140),
             t1 = __byte_perm(w[2], w[3], 0x5140),
             t2 = __byte_perm(w[0], w[1], 0x7362),
             t3 = __byte_perm(w[2], w[3], 0x7362);
    tile_t[rq][cq / 4] = __byte_perm(t0, t1, 0x5410);
    tile_t[rq + 1][cq / 4] = __byte_perm(t0, t1, 0x7632);
    tile_t[rq + 2][cq / 4] = __byte_perm(t2, t3, 0x5410);
    tile_t[rq + 3][cq / 4] = __byte_perm(t2, t3, 0x7632);
  }
  for (int k = 0; k < 4; k++)
    sums[cq / 4][rq + k] = sum[k];
  /* ends synchronised: tile_t and sums are complete */
  fp8_block_record(meta, amax, saturated, zero_codes - zero_x, nan);
  if (a.d_partials && threadIdx.x < TILE) {
    int row = blockIdx.x * TILE + threadIdx.x;
    if (row < a.rows) {
      float s = sums[0][threadIdx.x];
      for (int g = 1; g < TILE / 4; g++)
        s += sums[g][threadIdx.x];
      a.d_partials[(size_t)blockIdx.y * a.rows + row] = s;
    }
  }
  if (a.d_out_t) {
    /* Thread t: row t / 4 of the tile, its columns 16 (t % 4) .. + 15. */
    int row = threadIdx.x / 4, part = threadIdx.x % 4;
    int rr = blockIdx.x * TILE + row, c = blockIdx.y * TILE + 16 * part;
    if (rr < a.rows && c < a.cols) {
      uint8_t *out = a.d_out_t + (size_t)rr * a.ld_out_t + c;
      uint4 v =
          make_uint4(tile_t[row][4 * part], tile_t[row][4 * part + 1],
                     tile_t[row][4 * part + 2], tile_t[row][4 * part + 3]);
      if (c + 15 < a.cols) {
        *(uint4 *)out = v;
      } else {
        const uint8_t *bytes = (const uint8_t *)&v;
        for (int k = 0; c + k < a.cols; k++)
          out[k] = bytes[k];
      }
    }
  }
  if (blockIdx.x == 0 && blockIdx.y == 0 && threadIdx.x == 0) {
    meta->scale = scale;
    meta->scale_inv = 1.0f / scale;
    meta->casts += 1;
    meta->bad_amax += bad_shared ? 1 : 0;
  }
}

/* Whether every vector access of the cast is aligned: the source (and
 * masked copy) by four elements, the GELU input by four BF16, both FP8
 * outputs by four bytes. */
static bool vectorizable(const fp8_cast_args *a) {
  size_t s = lt_dtype_size(a->src_type);
  bool ok = a->ld_src % 4 == 0 && (uintptr_t)a->d_src % (4 * s) == 0 &&
            (uintptr_t)a->d_masked % (4 * s) == 0;
  if (a->mask == FP8_MASK_GELU)
    ok = ok && a->aux_ld % 4 == 0 && (uintptr_t)a->d_aux % 8 == 0;
  if (a->d_out) ok = ok && a->ld_out % 4 == 0 && (uintptr_t)a->d_out % 4 == 0;
  if (a->d_out_t)
    ok = ok && a->ld_out_t % 4 == 0 && (uintptr_t)a->d_out_t % 4 == 0;
  return ok;
}

/* The fast kernel's further needs: whole quads of rows, 16-byte rows of
 * the transposed copy. */
static bool fast(const fp8_cast_args *a) {
  return vectorizable(a) && a->rows % 4 == 0 &&
         (!a->d_out_t ||
          (a->ld_out_t % 16 == 0 && (uintptr_t)a->d_out_t % 16 == 0));
}

extern "C" int fp8_cast(const fp8_cast_args *a, gpu_early_cache *early,
                        cudaStream_t stream) {
  if ((a->src_type != LT_DTYPE_BF16 && a->src_type != LT_DTYPE_F32) ||
      (a->mask != FP8_MASK_NONE && a->src_type != LT_DTYPE_BF16) ||
      a->rows < 1 || a->cols < 1 || !a->d_meta) {
    fprintf(stderr,
            "fp8_cast: expected a BF16 source (or FP32 without a mask), "
            "rows, cols >= 1 and a scaling state, found type %s, mask %d, "
            "%d x %d\n",
            lt_dtype_name(a->src_type), (int)a->mask, a->rows, a->cols);
    return -1;
  }
  dim3 grid((unsigned)((a->rows + TILE - 1) / TILE),
            (unsigned)fp8_cast_tiles(a->cols));
  fp8_cast_args args = *a;
  bool vec = vectorizable(a);
#define FP8_LAUNCH(kernel)                                                     \
  do {                                                                         \
    if (a->src_type == LT_DTYPE_BF16 && vec)                                   \
      CUDA_CHECK(gpu_launch(early, kernel<__nv_bfloat16, true>, grid,          \
                            dim3(THREADS), stream, args));                     \
    else if (a->src_type == LT_DTYPE_BF16)                                     \
      CUDA_CHECK(gpu_launch(early, kernel<__nv_bfloat16, false>, grid,         \
                            dim3(THREADS), stream, args));                     \
    else if (vec)                                                              \
      CUDA_CHECK(gpu_launch(early, kernel<float, true>, grid, dim3(THREADS),   \
                            stream, args));                                    \
    else                                                                       \
      CUDA_CHECK(gpu_launch(early, kernel<float, false>, grid, dim3(THREADS),  \
                            stream, args));                                    \
  } while (0)
  if (a->current) {
    /* This cast's own amax: not the max with earlier casts since the last
     * roll (an evaluation pass between two steps). */
    CUDA_CHECK(
        cudaMemsetAsync(&a->d_meta->amax_bits, 0, sizeof(uint32_t), stream));
    FP8_LAUNCH(fp8_amax_kernel);
  }
#undef FP8_LAUNCH
  if (fast(a) && a->src_type == LT_DTYPE_BF16) {
    void (*kernel)(fp8_cast_args) =
        a->mask == FP8_MASK_RELU
            ? fp8_cast_fast_kernel<__nv_bfloat16, FP8_MASK_RELU>
        : a->mask == FP8_MASK_GELU
            ? fp8_cast_fast_kernel<__nv_bfloat16, FP8_MASK_GELU>
            : fp8_cast_fast_kernel<__nv_bfloat16, FP8_MASK_NONE>;
    CUDA_CHECK(gpu_launch(early, kernel, grid, dim3(THREADS), stream, args));
  } else if (fast(a)) {
    CUDA_CHECK(gpu_launch(early, fp8_cast_fast_kernel<float, FP8_MASK_NONE>,
                          grid, dim3(THREADS), stream, args));
  } else if (a->src_type == LT_DTYPE_BF16) {
    CUDA_CHECK(gpu_launch(early, fp8_cast_kernel<__nv_bfloat16>, grid,
                          dim3(THREADS), stream, args));
  } else {
    CUDA_CHECK(gpu_launch(early, fp8_cast_kernel<float>, grid, dim3(THREADS),
                          stream, args));
  }
  CUDA_CHECK_KERNEL("fp8_cast_kernel");
  return 0;
}

__global__ void fp8_bias_grad_kernel(__nv_bfloat16 *db, const float *partials,
                                     int rows, int tiles) {
  gpu_wait_previous();
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0.0f;
  for (int t = 0; t < tiles; t++)
    s += partials[(size_t)t * rows + r];
  db[r] = __float2bfloat16_rn(s);
}

extern "C" int fp8_bias_grad(void *d_db, const float *d_partials, int rows,
                             int tiles, cudaStream_t stream) {
  fp8_bias_grad_kernel<<<(rows + 255) / 256, 256, 0, stream>>>(
      (__nv_bfloat16 *)d_db, d_partials, rows, tiles);
  CUDA_CHECK_KERNEL("fp8_bias_grad_kernel");
  return 0;
}

__global__ void fp8_roll_kernel(fp8_meta *meta, int count, uint32_t *step) {
  gpu_wait_previous();
  unsigned slot = *step % FP8_HISTORY;
  for (int t = threadIdx.x; t < count; t += blockDim.x) {
    meta[t].history[slot] = __uint_as_float(meta[t].amax_bits);
    meta[t].amax_bits = 0;
  }
  __syncthreads();
  if (threadIdx.x == 0) *step += 1;
}

extern "C" int fp8_scales_roll(fp8_meta *d_meta, int count, uint32_t *d_step,
                               cudaStream_t stream) {
  fp8_roll_kernel<<<1, 64, 0, stream>>>(d_meta, count, d_step);
  CUDA_CHECK_KERNEL("fp8_roll_kernel");
  return 0;
}
