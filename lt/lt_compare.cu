/* lt_compare.cu: output comparisons for autotuning (see lt_compare.h). */
#include <math.h>
#include <stdio.h>

#include "gpu/gpu_check.h"

#include "lt/lt_compare.h"
#include "lt/lt_types.cuh"

enum { COMPARE_THREADS = 256 };

/* The larger of two differences, NaN winning (fmaxf would drop it). */
__device__ static float max_nan(float a, float b) {
  return (b > a || isnan(b)) && !isnan(a) ? b : a;
}

template <typename T>
__global__ void compare_values_kernel(lt_comparison *out, const T *x, int ld_x,
                                      const T *y, int ld_y, int m, int n) {
  __shared__ float diff_part[COMPARE_THREADS], ref_part[COMPARE_THREADS];
  __shared__ unsigned words_part[COMPARE_THREADS];
  float diff = 0.0f, ref = 0.0f;
  unsigned words = 0;
  size_t total = (size_t)m * n;
  for (size_t t = threadIdx.x; t < total; t += blockDim.x) {
    int i = (int)(t % m);
    size_t j = t / m;
    T xa = x[j * ld_x + i], yb = y[j * ld_y + i];
    float a = lt_to_float(xa), b = lt_to_float(yb);
    diff = max_nan(diff, fabsf(a - b));
    ref = fmaxf(ref, fabsf(b));
    words += lt_bits(xa) != lt_bits(yb);
  }
  diff_part[threadIdx.x] = diff;
  ref_part[threadIdx.x] = ref;
  words_part[threadIdx.x] = words;
  __syncthreads();
  for (int stride = COMPARE_THREADS / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) {
      diff_part[threadIdx.x] =
          max_nan(diff_part[threadIdx.x], diff_part[threadIdx.x + stride]);
      ref_part[threadIdx.x] =
          fmaxf(ref_part[threadIdx.x], ref_part[threadIdx.x + stride]);
      words_part[threadIdx.x] += words_part[threadIdx.x + stride];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    out->max_diff = diff_part[0];
    out->max_ref = ref_part[0];
    out->words_differ = words_part[0];
  }
}

extern "C" int lt_compare_values(lt_comparison *d_out, lt_dtype type,
                                 const void *d_x, int ld_x, const void *d_y,
                                 int ld_y, int m, int n, cudaStream_t stream) {
  LT_DISPATCH(type, compare_values_kernel<T>
              <<<1, COMPARE_THREADS, 0, stream>>>(d_out, (const T *)d_x, ld_x,
                                                  (const T *)d_y, ld_y, m, n));
  CUDA_CHECK_KERNEL("compare_values_kernel");
  return 0;
}

/* One thread per used mask byte; the last byte of a column keeps only the
 * bits of rows < m. */
__global__ void compare_masks_kernel(lt_comparison *out, const uint8_t *x,
                                     const uint8_t *y, int col_bytes, int m,
                                     int n) {
  __shared__ unsigned part[COMPARE_THREADS];
  int used = (m + 7) / 8;
  unsigned last = m % 8 ? (1u << (m % 8)) - 1u : 0xFFu;
  unsigned bits = 0;
  size_t total = (size_t)used * n;
  for (size_t t = threadIdx.x; t < total; t += blockDim.x) {
    int b = (int)(t % used);
    size_t j = t / used;
    unsigned differ = (unsigned)(x[j * col_bytes + b] ^ y[j * col_bytes + b]);
    if (b == used - 1) differ &= last;
    bits += __popc(differ);
  }
  part[threadIdx.x] = bits;
  __syncthreads();
  for (int stride = COMPARE_THREADS / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) part[threadIdx.x] += part[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) out->mask_bits_differ = part[0];
}

extern "C" int lt_compare_masks(lt_comparison *d_out, const uint8_t *d_x,
                                const uint8_t *d_y, int aux_ld, int m, int n,
                                cudaStream_t stream) {
  compare_masks_kernel<<<1, COMPARE_THREADS, 0, stream>>>(d_out, d_x, d_y,
                                                          aux_ld / 8, m, n);
  CUDA_CHECK_KERNEL("compare_masks_kernel");
  return 0;
}
