/* cast_t_kernel.cuh: session 26's probe kernel (probe_cast_t.cu, which
 * says what it probes and how it is held to fp8_cast): layer 1's ReLU cast
 * of a batch-major gradient, its variants chosen by PROBE_STAGES,
 * PROBE_BLOCKS and PROBE_COLUMNWISE; cast_t launches it. */
#ifndef PROBE_CAST_T_KERNEL_CUH
#define PROBE_CAST_T_KERNEL_CUH

#include <cuda_bf16.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpu/gpu_copy_async.cuh"
#include "layers/fp8_cast.h"
#include "layers/fp8_device.cuh"
#include "lt/lt_shape.h"
#include "lt/lt_types.cuh"

#define CK(x)                                                                  \
  do {                                                                         \
    cudaError_t e_ = (x);                                                      \
    if (e_ != cudaSuccess) {                                                   \
      fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

#ifndef PROBE_STAGES
#define PROBE_STAGES 4
#endif
enum {
  WARPS = 4,
  THREADS = 32 * WARPS,
  CHUNK = 32,
  CHUNKS = 4,
  STAGES = PROBE_STAGES
};

struct cast_t_args {
  const __nv_bfloat16 *src; /* (rows = n, cols = features), ld ld_src */
  int ld_src, rows, cols;
  const uint32_t *mask; /* the forward's bits: batch b's words at b * words */
  int words;            /* aux_ld / 32 */
  uint8_t *out;         /* (rows, cols), ld ld_out: dZ8T */
  int ld_out;
  float *partials; /* [ceil(rows / 128)][cols] */
  const float *scale;
  fp8_meta *meta;
  lt_fp8 format;
};

struct warp_ring {
  uint4 slot[STAGES][4][32];
  uint32_t mask[STAGES][32];
};

static __device__ __forceinline__ uint32_t pack4(const float *x, float s,
                                                 __nv_fp8_interpretation_t k) {
  return (uint32_t)__nv_cvt_float2_to_fp8x2(make_float2(x[0] * s, x[1] * s),
                                            __NV_SATFINITE, k) |
         (uint32_t)__nv_cvt_float2_to_fp8x2(make_float2(x[2] * s, x[3] * s),
                                            __NV_SATFINITE, k)
             << 16;
}

static __device__ __forceinline__ uint32_t nonzero_codes(uint32_t w) {
  return ((w & 0x7F7F7F7Fu) + 0x7F7F7F7Fu) & 0x80808080u;
}

/* A warp's place in its sequence of chunks: tile (tx, ty) (tile t = tx +
 * tiles_x ty; then t + gridDim.x), chunk `sub` of its four. */
struct cursor {
  int sub, tx, ty;
};

static __device__ __forceinline__ void advance(cursor &c, int step_x,
                                               int step_y, int tiles_x) {
  if (++c.sub < CHUNKS) return;
  c.sub = 0;
  int nx = c.tx + step_x;
  c.ty += step_y + (nx >= tiles_x);
  c.tx = nx >= tiles_x ? nx - tiles_x : nx;
}

/* The chunk at c into stage s: the lane's rows 8 bg .. + 7 of its four
 * features, and the ReLU word of row `lane` of the chunk. */
static __device__ __forceinline__ void load_chunk(warp_ring &ring, int s,
                                                  const cast_t_args &a,
                                                  const cursor &c, int lane) {
  int w = threadIdx.x / 32;
  int r = c.tx * 128 + c.sub * CHUNK + 8 * (lane % 4);
  int c0 = c.ty * 128 + 32 * w + 4 * (lane / 4);
  const __nv_bfloat16 *p = a.src + (size_t)c0 * a.ld_src + r;
  bool rows_in = r < a.rows;
  int cols_left = a.cols - c0;
#pragma unroll
  for (int j = 0; j < 4; j++)
    gpu_copy_async<16>(&ring.slot[s][j][lane], p + (size_t)j * a.ld_src,
                       rows_in && j < cols_left);
  int b = c.tx * 128 + c.sub * CHUNK + lane, word = c.ty * 4 + w;
  gpu_copy_async<4>(&ring.mask[s][lane], a.mask + (size_t)b * a.words + word,
                    b < a.rows && 32 * word < a.cols);
}

#ifndef PROBE_COLUMNWISE
#define PROBE_COLUMNWISE 0
#endif
#ifndef PROBE_BLOCKS
#define PROBE_BLOCKS 4
#endif
__global__ void __launch_bounds__(THREADS, PROBE_BLOCKS)
    cast_t_kernel(cast_t_args a, int tiles_x, int tiles) {
  __shared__ warp_ring rings[WARPS];
  int lane = threadIdx.x % 32, w = threadIdx.x / 32;
  warp_ring &ring = rings[w];
  int bg = lane % 4, q = lane / 4;
  float scale = *a.scale;
  __nv_fp8_interpretation_t kind = fp8_kind(a.format);
  int mine = tiles > (int)blockIdx.x
                 ? (tiles - 1 - (int)blockIdx.x) / (int)gridDim.x + 1
                 : 0;
  int chunks = mine * CHUNKS;
  int step_x = (int)gridDim.x % tiles_x, step_y = (int)gridDim.x / tiles_x;
  cursor at = {0, (int)blockIdx.x % tiles_x, (int)blockIdx.x / tiles_x};
  cursor ld = at;
  for (int k = 0; k < STAGES - 1; k++) {
    if (k < chunks) load_chunk(ring, k, a, ld, lane);
    gpu_copies_commit();
    advance(ld, step_x, step_y, tiles_x);
  }
  float block_amax = 0.0f, col[4] = {0, 0, 0, 0};
  unsigned zero_codes = 0, zero_x = 0, saturated = 0, nan = 0;
  for (int k = 0; k < chunks; k++) {
    int use = k % STAGES, fill = (k + STAGES - 1) % STAGES;
    __syncwarp(); /* the stage to refill: its mask words read */
    if (k + STAGES - 1 < chunks) load_chunk(ring, fill, a, ld, lane);
    gpu_copies_commit();
    advance(ld, step_x, step_y, tiles_x);
    gpu_copies_wait<STAGES - 1>();
    __syncwarp(); /* the lanes' mask words copied */
    uint4 m0 = *(const uint4 *)&ring.mask[use][8 * bg],
          m1 = *(const uint4 *)&ring.mask[use][8 * bg + 4];
    uint32_t m[8] = {m0.x, m0.y, m0.z, m0.w, m1.x, m1.y, m1.z, m1.w};
#pragma unroll
    for (int i = 0; i < 8; i++)
      m[i] >>= 4 * q;
#if PROBE_COLUMNWISE
    /* a column at a time: its 8 values live, its own flush and saturation
     * tests (exact: each counts where its values could lose) */
    int r = at.tx * 128 + at.sub * CHUNK + 8 * bg;
    int c0 = at.ty * 128 + 32 * w + 4 * q;
    uint8_t *out = a.out + (size_t)c0 * a.ld_out + r;
    bool rows_in = r < a.rows;
    int cols_left = a.cols - c0;
#pragma unroll
    for (int j = 0; j < 4; j++) {
      uint4 v = ring.slot[use][j][lane];
      const __nv_bfloat16 *e = (const __nv_bfloat16 *)&v;
      float x[8], s = 0.0f, least = INFINITY, amax = 0.0f;
#pragma unroll
      for (int i = 0; i < 8; i++) {
        float y = __bfloat162float(e[i]);
        least = fminf(least, fabsf(y));
        y = (m[i] >> j) & 1 ? y : 0.0f;
        x[i] = y;
        amax = fmaxf(amax, fabsf(y));
        s += y;
      }
      col[j] += s;
      block_amax = fmaxf(block_amax, amax);
      uint2 word;
      word.x = pack4(&x[0], scale, kind);
      word.y = pack4(&x[4], scale, kind);
      if (rows_in && j < cols_left)
        *(uint2 *)(out + (size_t)j * a.ld_out) = word;
      if (!(least * scale > fp8_flush_bound(a.format))) {
        zero_codes += 8 - __popc(nonzero_codes(word.x)) -
                      __popc(nonzero_codes(word.y));
#pragma unroll
        for (int i = 0; i < 8; i++)
          zero_x += x[i] == 0.0f;
      }
      if (fp8_saturates(amax * scale, a.format) || isnan(s))
#pragma unroll
        for (int i = 0; i < 8; i++) {
          saturated += fp8_saturates(x[i] * scale, a.format);
          nan += isnan(x[i] * scale) ? 1u : 0u;
        }
    }
#else
    /* per column: four independent chains, not one of 32 */
    float x[4][8], low[4], high[4];
    bool any_nan = false;
#pragma unroll
    for (int j = 0; j < 4; j++) {
      uint4 v = ring.slot[use][j][lane];
      const __nv_bfloat16 *e = (const __nv_bfloat16 *)&v;
      float s = 0.0f;
      low[j] = INFINITY;
      high[j] = 0.0f;
#pragma unroll
      for (int i = 0; i < 8; i++) {
        float y = __bfloat162float(e[i]);
        low[j] = fminf(low[j], fabsf(y));
        y = (m[i] >> j) & 1 ? y : 0.0f;
        x[j][i] = y;
        high[j] = fmaxf(high[j], fabsf(y));
        s += y;
      }
      any_nan = any_nan || isnan(s);
      col[j] += s;
    }
    float least = fminf(fminf(low[0], low[1]), fminf(low[2], low[3]));
    float amax = fmaxf(fmaxf(high[0], high[1]), fmaxf(high[2], high[3]));
    block_amax = fmaxf(block_amax, amax);
    int r = at.tx * 128 + at.sub * CHUNK + 8 * bg;
    int c0 = at.ty * 128 + 32 * w + 4 * q;
    uint8_t *out = a.out + (size_t)c0 * a.ld_out + r;
    bool rows_in = r < a.rows;
    int cols_left = a.cols - c0;
    uint2 words[4];
#pragma unroll
    for (int j = 0; j < 4; j++) {
      words[j].x = pack4(&x[j][0], scale, kind);
      words[j].y = pack4(&x[j][4], scale, kind);
      if (rows_in && j < cols_left)
        *(uint2 *)(out + (size_t)j * a.ld_out) = words[j];
    }
    if (!(least * scale > fp8_flush_bound(a.format))) {
      uint32_t nz = 0;
#pragma unroll
      for (int j = 0; j < 4; j++) {
        nz += nonzero_codes(words[j].x) >> 2 * j;
        nz += nonzero_codes(words[j].y) >> (2 * j + 1);
      }
      zero_codes += 32 - __popc(nz);
#pragma unroll
      for (int j = 0; j < 4; j++)
#pragma unroll
        for (int i = 0; i < 8; i++)
          zero_x += x[j][i] == 0.0f;
    }
    if (fp8_saturates(amax * scale, a.format) || any_nan)
#pragma unroll
      for (int j = 0; j < 4; j++)
#pragma unroll
        for (int i = 0; i < 8; i++) {
          saturated += fp8_saturates(x[j][i] * scale, a.format);
          nan += isnan(x[j][i] * scale) ? 1u : 0u;
        }
#endif
    if (at.sub == CHUNKS - 1) { /* the tile's column sums */
#pragma unroll
      for (int j = 0; j < 4; j++) {
        col[j] += __shfl_xor_sync(0xFFFFFFFFu, col[j], 1);
        col[j] += __shfl_xor_sync(0xFFFFFFFFu, col[j], 2);
      }
      float *part = a.partials + (size_t)at.tx * a.cols + c0;
      if (bg == 0 && cols_left >= 4)
        *(float4 *)part = make_float4(col[0], col[1], col[2], col[3]);
      else if (bg == 0)
#pragma unroll
        for (int j = 0; j < 4; j++)
          if (j < cols_left) part[j] = col[j];
      col[0] = col[1] = col[2] = col[3] = 0.0f;
    }
    advance(at, step_x, step_y, tiles_x);
  }
  fp8_block_record(a.meta, true, block_amax, saturated, zero_codes - zero_x,
                   nan);
}

static int blocks_for(int tiles) {
  int places = 0, sms = 0;
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&places, cast_t_kernel,
                                                   THREADS, 0));
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  places *= sms;
  int rounds = (tiles + places - 1) / places;
  return (tiles + rounds - 1) / rounds;
}

static void cast_t(const cast_t_args &a, cudaStream_t s) {
  int tiles_x = (a.rows + 127) / 128;
  int tiles = tiles_x * ((a.cols + 127) / 128);
  cast_t_kernel<<<blocks_for(tiles), THREADS, 0, s>>>(a, tiles_x, tiles);
  CK(cudaGetLastError());
}
#endif
