/* fp8_cast_load.cuh: the FP8 cast's source side (fp8_cast.cu): the ring
 * of tiles in flight in shared memory, a tile's copies into it, and the
 * decode of a thread's values, masked by the ReLU bits or times GELU'. */
#ifndef MNIST_EPILOGS_FP8_CAST_LOAD_CUH
#define MNIST_EPILOGS_FP8_CAST_LOAD_CUH

#include "gpu/gpu_copy_async.cuh"
#include "layers/fp8_cast.h"
#include "layers/fp8_tile.cuh"
#include "lt/lt_gelu.h"
#include "lt/lt_types.cuh"

enum { FP8_CAST_ROWS = 32 };

/* The block's tiles in flight (gpu_copy_async), a ring of STAGES. A tile holds
 * each thread's 16-byte slots ([slot][thread]: 512 contiguous bytes a warp):
 * its four columns' values (FP32: two slots each), then GELU's z of each, read
 * only by the copying thread. ReLU: each thread copies the mask word of rows
 * 32 tx .. + 31 of column c0 + rg, reads its column quad's four. Two stages
 * where a tile needs twice the slots (three would take 48 KB). */
template <typename S, fp8_mask MASK> struct fp8_cast_ring {
  enum {
    VECS = sizeof(S) / 2,
    SLOTS = 4 * VECS + (MASK == FP8_MASK_GELU ? 4 : 0),
    STAGES = SLOTS > 4 ? 2 : 3,
    MASK_WORDS = MASK == FP8_MASK_RELU ? FP8_TILE_THREADS : 4
  };
  uint4 slot[STAGES][SLOTS][FP8_TILE_THREADS];
  __align__(16) uint32_t mask[STAGES][MASK_WORDS];
};

/* GELU'(z) of lt_gelu.h's tanh form, (1 + t) / 2 + (1 - t^2) (s / 2) z
 * (1 + 3 c z^2), t = tanh(s (z + c z^3)), from one e = 2^a, a = 2 log2(e)
 * s (z + c z^3): r = 1 / (e + 1) gives (1 + t) / 2 = e r, 1 - t^2 = 4 e r^2
 * (no cancelling). z clamped to [-8, 8] (GELU' 1.0f from 7, < 1e-13 below -7),
 * z - z added to the slope (NaN, inf: NaN). Within 4e-7 on every BF16 z (tanhf:
 * 6e-7). */
static __device__ __forceinline__ float fp8_gelu_grad(float z) {
  const float s = (float)LT_GELU_SCALE, c = (float)LT_GELU_CUBIC;
  const float k = 2.0f * 1.44269504f * s; /* 2 log2(e) s */
  float zc = fminf(fmaxf(z, -8.0f), 8.0f), z2 = zc * zc, e, r;
  float a = zc * fmaf(k * c, z2, k);
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(e) : "f"(a));
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(e + 1.0f));
  float half_1_plus_t = e * r;
  /* 4 (s / 2) z (..), plus z - z: NaN where z is not finite, else +0 */
  float slope = fmaf(zc, fmaf(6.0f * s * c, z2, 2.0f * s), z - z);
  return fmaf(slope, half_1_plus_t * r, half_1_plus_t);
}

/* BF16 pair words: the low half holds the even row, the high the odd. */
static __device__ __forceinline__ __nv_bfloat162 fp8_pair(uint32_t w) {
  return *(const __nv_bfloat162 *)&w;
}
static __device__ __forceinline__ uint32_t fp8_word(__nv_bfloat162 p) {
  return *(const uint32_t *)&p;
}

/* Column words w (rows 0-7 as pairs) masked by the ReLU bits b (bit i: row
 * i): each nibble's bits moved to its bytes' top bits by one multiply (the
 * shifted copies never overlap), copied over their halves by prmt's sign
 * replication. */
static __device__ __forceinline__ void fp8_mask_words(uint32_t w[4],
                                                      unsigned b) {
  uint32_t lo = (b & 0xFu) * 0x10204080u, hi = (b >> 4 & 0xFu) * 0x10204080u;
  uint32_t m[4];
  asm("prmt.b32 %0, %4, 0, 0x9988;\n\tprmt.b32 %1, %4, 0, 0xBBAA;\n\t"
      "prmt.b32 %2, %5, 0, 0x9988;\n\tprmt.b32 %3, %5, 0, 0xBBAA;"
      : "=r"(m[0]), "=r"(m[1]), "=r"(m[2]), "=r"(m[3])
      : "r"(lo), "r"(hi));
#pragma unroll
  for (int k = 0; k < 4; k++)
    w[k] &= m[k];
}

/* The thread's values of stage `stage`'s tile ([column][row]; 0 past the
 * matrix), masked (GELU: rounded to S, as a 16-bit buffer holds it); *least:
 * no non-zero |x| is below it (ReLU: least |x| before the mask; else 0);
 * *amax: the largest |x| after it (a NaN never wins, inf does); *zeros:
 * GELU's zero values (its products are often tiny: always counted), else -1.
 * A BF16 source is masked, compared and rounded two values an instruction. */
template <typename S, fp8_mask MASK>
__device__ __forceinline__ void
fp8_decode_tile(float (*x)[8], float *least, float *amax, int *zeros,
                const fp8_cast_ring<S, MASK> &ring, int stage, int rg) {
  *least = 0.0f;
  *zeros = -1;
  if (sizeof(S) == 4) {
    float top = 0.0f;
#pragma unroll
    for (int j = 0; j < 4; j++) {
      uint4 v[2] = {ring.slot[stage][2 * j][threadIdx.x],
                    ring.slot[stage][2 * j + 1][threadIdx.x]};
#pragma unroll
      for (int i = 0; i < 8; i++) {
        x[j][i] = ((const float *)v)[i];
        top = fmaxf(top, fabsf(x[j][i]));
      }
    }
    *amax = top;
    return;
  }
  uint4 quad = make_uint4(0, 0, 0, 0); /* the column quad's mask words */
  if (MASK == FP8_MASK_RELU)
    quad = *(const uint4 *)&ring.mask[stage][threadIdx.x & ~3u];
  const uint32_t *words = (const uint32_t *)&quad;
  const __nv_bfloat162 zero = __float2bfloat162_rn(0.0f);
  __nv_bfloat162 low = __float2bfloat162_rn(INFINITY), top = zero,
                 bottom = zero, zero_pairs = zero; /* exact to 256 */
#pragma unroll
  for (int j = 0; j < 4; j++) {
    uint4 v = ring.slot[stage][j][threadIdx.x];
    uint32_t w[4] = {v.x, v.y, v.z, v.w};
    if (MASK == FP8_MASK_RELU) {
#pragma unroll
      for (int k = 0; k < 4; k++)
        low = __hmin2(low, __habs2(fp8_pair(w[k])));
      fp8_mask_words(w, words[j] >> 8 * rg);
    }
    if (MASK == FP8_MASK_GELU) {
      uint4 zv = ring.slot[stage][4 + j][threadIdx.x];
      uint32_t z[4] = {zv.x, zv.y, zv.z, zv.w};
#pragma unroll
      for (int k = 0; k < 4; k++) {
        w[k] = fp8_word(__floats2bfloat162_rn(
            __uint_as_float(w[k] << 16) *
                fp8_gelu_grad(__uint_as_float(z[k] << 16)),
            __uint_as_float(w[k] & 0xFFFF0000u) *
                fp8_gelu_grad(__uint_as_float(z[k] & 0xFFFF0000u))));
        zero_pairs = __hadd2(zero_pairs, __heq2(fp8_pair(w[k]), zero));
      }
    }
#pragma unroll
    for (int k = 0; k < 4; k++) {
      top = __hmax2(top, fp8_pair(w[k]));
      bottom = __hmin2(bottom, fp8_pair(w[k]));
      x[j][2 * k] = __uint_as_float(w[k] << 16);
      x[j][2 * k + 1] = __uint_as_float(w[k] & 0xFFFF0000u);
    }
  }
  if (MASK == FP8_MASK_RELU)
    *least = fminf(__low2float(low), __high2float(low));
  if (MASK == FP8_MASK_GELU)
    *zeros = (int)(__low2float(zero_pairs) + __high2float(zero_pairs));
  /* |.|: no -0 leaves (fp8_block_record's atomicMax compares bits) */
  *amax = fmaxf(fabsf(fmaxf(__low2float(top), __high2float(top))),
                fabsf(fminf(__low2float(bottom), __high2float(bottom))));
}

/* Tile (tx, ty)'s slots of this thread copied into stage `stage`: rows
 * r .. r + 7 of columns c0 .. c0 + 3 and what their mask reads. */
template <typename S, fp8_mask MASK>
__device__ __forceinline__ void fp8_load_tile(fp8_cast_ring<S, MASK> &ring,
                                              int stage, const fp8_cast_args &a,
                                              int tx, int ty, int rg, int cq) {
  enum { VECS = sizeof(S) / 2 };
  int r = tx * FP8_CAST_ROWS + 8 * rg, c0 = ty * FP8_TILE_COLS + 4 * cq;
  const S *src = (const S *)a.d_src + (size_t)c0 * a.ld_src + r;
  /* RELU: the word of rows 32 tx .. + 31; GELU: z's 8 values; else none */
  size_t aux_stride =
      MASK == FP8_MASK_RELU ? a.aux_ld / 8 : 2 * (size_t)a.aux_ld;
  const uint8_t *aux = MASK == FP8_MASK_NONE
                           ? NULL
                           : (const uint8_t *)a.d_aux + c0 * aux_stride +
                                 (MASK == FP8_MASK_RELU ? 4 * tx : 2 * r);
#pragma unroll
  for (int j = 0; j < 4; j++) {
    bool in = r < a.rows && c0 + j < a.cols;
#pragma unroll
    for (int k = 0; k < VECS; k++)
      gpu_copy_async<16>(&ring.slot[stage][VECS * j + k][threadIdx.x],
                         (const uint4 *)(src + (size_t)j * a.ld_src) + k, in);
    if (MASK == FP8_MASK_GELU)
      gpu_copy_async<16>(&ring.slot[stage][4 * VECS + j][threadIdx.x],
                         aux + j * aux_stride, in);
  }
  if (MASK == FP8_MASK_RELU)
    gpu_copy_async<4>(&ring.mask[stage][threadIdx.x], aux + rg * aux_stride,
                      tx * FP8_CAST_ROWS < a.rows && c0 + rg < a.cols);
}

#endif
