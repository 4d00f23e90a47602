/* fp8_device.cuh: the device side of layers/fp8.h, shared by the FP8
 * step's kernels (fp8_cast.cu, sgd_fp8.cu): the scale from an amax, the
 * amax a cast's scale comes from, the cast itself (cuda_fp8.h's, which
 * test_fp8 holds to fp8.c bit for bit), the saturation rule of
 * fp8_counts, and the block reductions that record an amax and counts. */
#ifndef MNIST_EPILOGS_FP8_DEVICE_CUH
#define MNIST_EPILOGS_FP8_DEVICE_CUH

#include <cuda_fp8.h>

#include "layers/fp8_cast.h"

/* Threads per block of every kernel that calls fp8_block_record. */
#define FP8_THREADS 256

/* fp8_scale_from_amax (layers/fp8.c), on the device: the largest 2^k with
 * amax * 2^k <= max_finite, k <= 126; amax 0 gives 1; a NaN or infinite
 * amax keeps `previous` and sets *bad. */
static __device__ float fp8_scale_of(float amax, float max_finite,
                                     float previous, bool *bad) {
  *bad = false;
  if (!(amax >= 0.0f) || isinf(amax)) {
    *bad = true;
    return previous;
  }
  if (amax == 0.0f) return 1.0f;
  int ea, em;
  float a = frexpf(amax, &ea);
  float m = frexpf(max_finite, &em);
  int k = em - ea - (a > m ? 1 : 0);
  return ldexpf(1.0f, k > 126 ? 126 : k);
}

/* The amax the scale comes from: this step's (current) or the history's
 * largest (delayed). */
static __device__ float fp8_reference_amax(const fp8_meta *meta, int current) {
  if (current) return __uint_as_float(meta->amax_bits);
  float amax = 0.0f;
  for (int i = 0; i < FP8_HISTORY; i++)
    amax = fmaxf(amax, meta->history[i]);
  return amax;
}

static __device__ __forceinline__ uint8_t fp8_encode_device(float p,
                                                            fp8_format format) {
  return (uint8_t)__nv_cvt_float_to_fp8(
      p, __NV_SATFINITE, format == FP8_FORMAT_E5M2 ? __NV_E5M2 : __NV_E4M3);
}

/* fp8_counts' saturation rule: beyond the rounding boundary (E4M3: above
 * 464, whose tie rounds down to 448; E5M2: 61440 and above, whose tie
 * rounds up), inf included; NaN is not. */
static __device__ __forceinline__ bool fp8_saturates(float p,
                                                     fp8_format format) {
  return format == FP8_FORMAT_E5M2 ? fabsf(p) >= 61440.0f : fabsf(p) > 464.0f;
}

static __device__ __forceinline__ float fp8_warp_max(float v) {
  for (int o = 16; o > 0; o /= 2)
    v = fmaxf(v, __shfl_xor_sync(0xFFFFFFFFu, v, o));
  return v;
}

static __device__ __forceinline__ unsigned fp8_warp_sum(unsigned v) {
  for (int o = 16; o > 0; o /= 2)
    v += __shfl_xor_sync(0xFFFFFFFFu, v, o);
  return v;
}

/* What one block's casts found: the amax (into meta->amax_bits; non-
 * negative floats order as their bits) and the counts, reduced over the
 * block first so that each block makes at most four atomic updates (per
 * warp they were the cast's bottleneck: a gradient flushes values in most
 * warps, and 4096 blocks of 8 warps queued on one address). Every thread
 * calls it; it ends with the block synchronised. */
static __device__ void fp8_block_record(fp8_meta *meta, float amax,
                                        unsigned saturated, unsigned flushed,
                                        unsigned nan) {
  __shared__ float warp_amax[FP8_THREADS / 32];
  __shared__ unsigned warp_counts[3][FP8_THREADS / 32];
  amax = fp8_warp_max(amax);
  saturated = fp8_warp_sum(saturated);
  flushed = fp8_warp_sum(flushed);
  nan = fp8_warp_sum(nan);
  int w = threadIdx.x / 32;
  if (threadIdx.x % 32 == 0) {
    warp_amax[w] = amax;
    warp_counts[0][w] = saturated;
    warp_counts[1][w] = flushed;
    warp_counts[2][w] = nan;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned counts[3] = {0, 0, 0};
    for (int i = 0; i < FP8_THREADS / 32; i++) {
      amax = fmaxf(amax, warp_amax[i]);
      for (int k = 0; k < 3; k++)
        counts[k] += warp_counts[k][i];
    }
    atomicMax(&meta->amax_bits, __float_as_uint(amax));
    if (counts[0]) atomicAdd(&meta->saturated, counts[0]);
    if (counts[1]) atomicAdd(&meta->flushed, counts[1]);
    if (counts[2]) atomicAdd(&meta->nan, counts[2]);
  }
}

#endif
