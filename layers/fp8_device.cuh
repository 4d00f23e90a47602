/* fp8_device.cuh: the device side of layers/fp8.h, shared by the FP8
 * step's kernels (fp8_cast.cu, fp8_transpose.cu, sgd_fp8.cu, xent.cu): the
 * cast itself (cuda_fp8.h's, which test_fp8 holds to fp8.c bit for bit),
 * the saturation rule of fp8_meta's counts, the block reduction that
 * records an amax and counts, and the roll of one tensor's history. The
 * scale rule is fp8.h's fp8_scale_rule, compiled for the device. */
#ifndef MNIST_EPILOGS_FP8_DEVICE_CUH
#define MNIST_EPILOGS_FP8_DEVICE_CUH

#include <cuda_fp8.h>

#include "layers/fp8_cast.h"

static __device__ __forceinline__ __nv_fp8_interpretation_t
fp8_kind(lt_fp8 format) {
  return format == LT_FP8_E5M2 ? __NV_E5M2 : __NV_E4M3;
}

static __device__ __forceinline__ uint8_t fp8_encode_device(float p,
                                                            lt_fp8 format) {
  return (uint8_t)__nv_cvt_float_to_fp8(p, __NV_SATFINITE, fp8_kind(format));
}

/* The counts' saturation rule: beyond the rounding boundary (E4M3: above
 * 464, whose tie rounds down to 448; E5M2: 61440 and above, whose tie
 * rounds up), inf included; NaN is not. */
static __device__ __forceinline__ bool fp8_saturates(float p, lt_fp8 format) {
  return format == LT_FP8_E5M2 ? fabsf(p) >= 61440.0f : fabsf(p) > 464.0f;
}

/* The counts' flush rule's bound: a code is +-0 exactly when |p| is at
 * most half the smallest subnormal (E4M3 2^-10, E5M2 2^-17: the tie
 * rounds to the even 0). */
static __device__ __forceinline__ float fp8_flush_bound(lt_fp8 format) {
  return format == LT_FP8_E5M2 ? 0x1p-17f : 0x1p-10f;
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

/* What one block found, into `meta`: the amax (atomicMax of its bits, when
 * `record_amax`) and the counts, reduced over the block first so that each
 * block makes at most four atomic updates, and none for a zero count.
 * Every thread of the block (a multiple of 32, at most 1024) calls it; it
 * ends with the block synchronised. */
static __device__ void fp8_block_record(fp8_meta *meta, bool record_amax,
                                        float amax, unsigned saturated,
                                        unsigned flushed, unsigned nan) {
  __shared__ float warp_amax[32];
  __shared__ unsigned warp_counts[3][32];
  amax = fp8_warp_max(amax);
  saturated = fp8_warp_sum(saturated);
  flushed = fp8_warp_sum(flushed);
  nan = fp8_warp_sum(nan);
  int w = threadIdx.x / 32, warps = blockDim.x / 32;
  if (threadIdx.x % 32 == 0) {
    warp_amax[w] = amax;
    warp_counts[0][w] = saturated;
    warp_counts[1][w] = flushed;
    warp_counts[2][w] = nan;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned counts[3] = {0, 0, 0};
    for (int i = 0; i < warps; i++) {
      amax = fmaxf(amax, warp_amax[i]);
      for (int k = 0; k < 3; k++)
        counts[k] += warp_counts[k][i];
    }
    if (record_amax) atomicMax((unsigned *)&meta->amax, __float_as_uint(amax));
    if (counts[0]) atomicAdd(&meta->saturated, counts[0]);
    if (counts[1]) atomicAdd(&meta->flushed, counts[1]);
    if (counts[2]) atomicAdd(&meta->nan, counts[2]);
  }
  __syncthreads();
}

/* The roll of one tensor (fp8_roll_args): its amax (written by other
 * blocks or kernels before: read through the L2, volatile) into history
 * slot `slot`, the next scale, amax zeroed. scale_inv follows the new
 * scale unless `weights`. */
static __device__ void fp8_roll_one(fp8_meta *meta, unsigned slot,
                                    lt_fp8 format, bool weights) {
  float amax = *(volatile float *)&meta->amax, used = meta->scale;
  float max_finite = fp8_max_finite(format);
  meta->history[slot] = amax;
  if (amax * used > max_finite) meta->overflows += 1;
  float reference = 0.0f;
  for (int i = 0; i < FP8_HISTORY; i++)
    reference = fmaxf(reference, meta->history[i]);
  int outcome;
  float next = fp8_scale_rule(reference, max_finite, used, &outcome);
  if (!(amax >= 0.0f) || isinf(amax) || outcome == FP8_SCALE_BAD)
    meta->bad_amax += 1;
  meta->scale = next;
  if (!weights) meta->scale_inv = 1.0f / next;
  meta->amax = 0.0f;
}

/* The roll of every tensor of `a`, by the threads of one block, which
 * then advance the step (thread 0, after the others are done). Every
 * thread of the block calls it. */
static __device__ void fp8_roll_block(const fp8_roll_args &a) {
  unsigned slot = *a.d_step % FP8_HISTORY;
  for (int t = threadIdx.x; t < 3 * a.layers; t += blockDim.x)
    fp8_roll_one(&a.d_meta[t], slot,
                 t < 2 * a.layers ? LT_FP8_E4M3 : a.gradient, t < a.layers);
  __syncthreads();
  if (threadIdx.x == 0) *a.d_step += 1;
}

#endif
