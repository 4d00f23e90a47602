/* fp8_device.cuh: the device side of layers/fp8.h for the FP8 kernels:
 * the cast (cuda_fp8.h's, held to fp8.c by test_fp8), the counts' rules,
 * the block's record of an amax and counts, and the roll. */
#ifndef MNIST_EPILOGS_FP8_DEVICE_CUH
#define MNIST_EPILOGS_FP8_DEVICE_CUH

#include <cuda_fp8.h>

#include "layers/fp8_cast.h"

/* FP8 runs from sm_89 on (gpu_precision_check refuses it below). Code for
 * architectures below FP8_TRAP_BELOW no FP8 GPU runs (CMakeLists.txt derives
 * it from the build's cubins and PTX; 0 or undefined: none): there the FP8
 * cast compiles to a trap, not to code that nothing runs. */
#if defined(__CUDA_ARCH__) && defined(FP8_TRAP_BELOW) &&                       \
    __CUDA_ARCH__ < FP8_TRAP_BELOW
#define FP8_ARCH_MISSING 1
#else
#define FP8_ARCH_MISSING 0
#endif

static __device__ __forceinline__ __nv_fp8_interpretation_t
fp8_kind(lt_fp8 format) {
  return format == LT_FP8_E5M2 ? __NV_E5M2 : __NV_E4M3;
}

static __device__ __forceinline__ uint8_t fp8_encode_device(float p,
                                                            lt_fp8 format) {
  return (uint8_t)__nv_cvt_float_to_fp8(p, __NV_SATFINITE, fp8_kind(format));
}

/* Counted saturated: past fp8_encode's rounding boundary, inf too; NaN not. */
static __device__ __forceinline__ bool fp8_saturates(float p, lt_fp8 format) {
  return format == LT_FP8_E5M2 ? fabsf(p) >= 61440.0f : fabsf(p) > 464.0f;
}

/* A code is +-0 exactly when |p| <= this: half the least subnormal (tie: 0). */
static __device__ __forceinline__ float fp8_flush_bound(lt_fp8 format) {
  return format == LT_FP8_E5M2 ? 0x1p-17f : 0x1p-10f;
}

/* One block's amax (>= 0, not NaN: atomicMax of its bits, if `record_amax`) and
 * counts into `meta`, summed over the block first: at most four global atomics,
 * none for a zero count. All threads (whole warps) call it; it ends synced. */
static __device__ void fp8_block_record(fp8_meta *meta, bool record_amax,
                                        float amax, unsigned saturated,
                                        unsigned flushed, unsigned nan) {
  __shared__ unsigned block[4]; /* amax's bits, saturated, flushed, nan */
  if (threadIdx.x < 4) block[threadIdx.x] = 0;
  __syncthreads();
  for (int o = 16; o > 0; o /= 2) {
    amax = fmaxf(amax, __shfl_xor_sync(0xFFFFFFFFu, amax, o));
    saturated += __shfl_xor_sync(0xFFFFFFFFu, saturated, o);
    flushed += __shfl_xor_sync(0xFFFFFFFFu, flushed, o);
    nan += __shfl_xor_sync(0xFFFFFFFFu, nan, o);
  }
  if (threadIdx.x % 32 == 0) {
    atomicMax(&block[0], __float_as_uint(amax)); /* amax >= 0: bits order */
    atomicAdd(&block[1], saturated);
    atomicAdd(&block[2], flushed);
    atomicAdd(&block[3], nan);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    if (record_amax) atomicMax((unsigned *)&meta->amax, block[0]);
    if (block[1]) atomicAdd(&meta->saturated, block[1]);
    if (block[2]) atomicAdd(&meta->flushed, block[2]);
    if (block[3]) atomicAdd(&meta->nan, block[3]);
  }
  __syncthreads();
}

/* The roll of one tensor (fp8_roll_args): its amax (others' writes: read
 * volatile) into history slot `slot`, the next scale, amax zeroed. */
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

/* `a`'s roll by one block (every thread calls it), then the step advanced. */
static __device__ void fp8_roll_block(const fp8_roll_args &a) {
  unsigned slot = *a.d_step % FP8_HISTORY;
  for (int t = threadIdx.x; t < 3 * a.layers; t += blockDim.x)
    fp8_roll_one(&a.d_meta[t], slot,
                 t < 2 * a.layers ? LT_FP8_E4M3 : a.gradient, t < a.layers);
  __syncthreads();
  if (threadIdx.x == 0) *a.d_step += 1;
}

#endif
