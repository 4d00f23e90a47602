/* lt_compare.cu: output comparisons for the candidates' check, and its
 * probe operands (see lt_compare.h). */
#include <cuda_fp8.h>
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

/* Blocks of the comparisons: a grid-stride loop, each block's maxima and
 * counts folded into *out with atomics (out zeroed by the caller). */
enum { COMPARE_MAX_BLOCKS = 1024 };

static int compare_blocks(size_t total) {
  size_t blocks = (total + COMPARE_THREADS - 1) / COMPARE_THREADS;
  return blocks < 1                    ? 1
         : blocks > COMPARE_MAX_BLOCKS ? COMPARE_MAX_BLOCKS
                                       : (int)blocks;
}

/* A non-negative float's bits order as the floats do, and a NaN's above
 * infinity: so atomicMax on the bits keeps the larger value, NaN winning. */
__device__ static void atomic_max_nonneg(float *at, float value) {
  atomicMax((unsigned *)at, __float_as_uint(value));
}

template <typename T>
__global__ void compare_values_kernel(lt_comparison *out, const T *x, int ld_x,
                                      const T *y, int ld_y, int m, int n) {
  __shared__ float diff_part[COMPARE_THREADS], ref_part[COMPARE_THREADS];
  __shared__ unsigned words_part[COMPARE_THREADS];
  float diff = 0.0f, ref = 0.0f;
  unsigned words = 0;
  size_t total = (size_t)m * n;
  for (size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x; t < total;
       t += (size_t)gridDim.x * blockDim.x) {
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
    atomic_max_nonneg(&out->max_diff, diff_part[0]);
    atomic_max_nonneg(&out->max_ref, ref_part[0]);
    atomicAdd(&out->words_differ, words_part[0]);
  }
}

extern "C" int lt_compare_values(lt_comparison *d_out, lt_dtype type,
                                 const void *d_x, int ld_x, const void *d_y,
                                 int ld_y, int m, int n, cudaStream_t stream) {
  int blocks = compare_blocks((size_t)m * n);
  LT_DISPATCH(type,
              compare_values_kernel<T><<<blocks, COMPARE_THREADS, 0, stream>>>(
                  d_out, (const T *)d_x, ld_x, (const T *)d_y, ld_y, m, n));
  CUDA_CHECK_KERNEL("compare_values_kernel");
  return 0;
}

__global__ void compare_bytes_kernel(lt_comparison *out, const uint8_t *x,
                                     int ld_x, const uint8_t *y, int ld_y,
                                     int m, int n) {
  __shared__ unsigned part[COMPARE_THREADS];
  unsigned bytes = 0;
  size_t total = (size_t)m * n;
  for (size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x; t < total;
       t += (size_t)gridDim.x * blockDim.x) {
    size_t i = t % m, j = t / m;
    bytes += x[j * ld_x + i] != y[j * ld_y + i];
  }
  part[threadIdx.x] = bytes;
  __syncthreads();
  for (int stride = COMPARE_THREADS / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) part[threadIdx.x] += part[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(&out->words_differ, part[0]);
}

extern "C" int lt_compare_bytes(lt_comparison *d_out, const void *d_x, int ld_x,
                                const void *d_y, int ld_y, int m, int n,
                                cudaStream_t stream) {
  compare_bytes_kernel<<<compare_blocks((size_t)m * n), COMPARE_THREADS, 0,
                         stream>>>(d_out, (const uint8_t *)d_x, ld_x,
                                   (const uint8_t *)d_y, ld_y, m, n);
  CUDA_CHECK_KERNEL("compare_bytes_kernel");
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
  for (size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x; t < total;
       t += (size_t)gridDim.x * blockDim.x) {
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
  if (threadIdx.x == 0) atomicAdd(&out->mask_bits_differ, part[0]);
}

extern "C" int lt_compare_masks(lt_comparison *d_out, const uint8_t *d_x,
                                const uint8_t *d_y, int aux_ld, int m, int n,
                                cudaStream_t stream) {
  int blocks = compare_blocks((size_t)((m + 7) / 8) * n);
  compare_masks_kernel<<<blocks, COMPARE_THREADS, 0, stream>>>(
      d_out, d_x, d_y, aux_ld / 8, m, n);
  CUDA_CHECK_KERNEL("compare_masks_kernel");
  return 0;
}

/* A fixed pseudo-random value in [-1, 1) for position (i, j) of matrix
 * `which` (0: A, 1: B): a 32-bit integer hash (lowbias32). */
__device__ static float probe_small(int which, int i, int j) {
  unsigned h = (unsigned)i * 0x9E3779B1u ^ (unsigned)j * 0x85EBCA77u ^
               (unsigned)which * 0xC2B2AE3Du;
  h ^= h >> 16;
  h *= 0x7FEB352Du;
  h ^= h >> 15;
  h *= 0x846CA68Bu;
  h ^= h >> 16;
  return (float)(h >> 8) * (2.0f / 16777216.0f) - 1.0f;
}

/* One stored element's value: op(M)[r][c] with r, c the logical indices of
 * the stored (row, col) (transposed when `trans`), zero past the logical
 * rows. In the product, index p (0 .. k) is A's column and B's row: the
 * first and last p carry `big`, negated at the last p in the matrix that
 * carries the sign (`negative`). */
__device__ static float probe_value(int which, int row, int col, int trans,
                                    int rows, int k, float big, int negative) {
  int r = trans ? col : row, c = trans ? row : col; /* op(M)[r][c] */
  if (row >= rows) return 0.0f;
  int p = which == 0 ? c : r;
  int other = which == 0 ? r : c;
  if (k >= 2 && p == 0) return big;
  if (k >= 2 && p == k - 1) return negative ? -big : big;
  return probe_small(which, other, p);
}

struct probe_matrix {
  int which, trans, ld, rows, cols, k;
  float big;
  int negative; /* this matrix's last p is -big */
};

template <typename T> __device__ void probe_store(T *at, float value) {
  *at = lt_from_float<T>(value);
}

__global__ void probe_fill_fp8_kernel(uint8_t *d, probe_matrix m, int e5m2) {
  size_t total = (size_t)m.ld * m.cols;
  for (size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x; t < total;
       t += (size_t)gridDim.x * blockDim.x) {
    float v = probe_value(m.which, (int)(t % m.ld), (int)(t / m.ld), m.trans,
                          m.rows, m.k, m.big, m.negative);
    d[t] = (uint8_t)__nv_cvt_float_to_fp8(v, __NV_SATFINITE,
                                          e5m2 ? __NV_E5M2 : __NV_E4M3);
  }
}

template <typename T> __global__ void probe_fill_kernel(T *d, probe_matrix m) {
  size_t total = (size_t)m.ld * m.cols;
  for (size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x; t < total;
       t += (size_t)gridDim.x * blockDim.x)
    probe_store(d + t, probe_value(m.which, (int)(t % m.ld), (int)(t / m.ld),
                                   m.trans, m.rows, m.k, m.big, m.negative));
}

/* The large terms' factors: H = big_a * big_b, each exact in its type
 * (lt_autotune.h gives H). BGRADB sums op(B) over p: there B carries the
 * large factor and the sign, so its bias gradient cancels too (BGRADA sums
 * op(A), which carries them already). */
static void probe_bigs(const lt_shape *s, float *big_a, float *big_b,
                       int *b_negative) {
  *b_negative = s->epilogue == LT_EPILOGUE_BGRADB;
  if (lt_shape_is_fp8(s)) {
    *big_a = *big_b = 256.0f; /* 2^16; E4M3 max 448, E5M2 57344 */
  } else if (s->type == LT_DTYPE_F16) {
    *big_a = 16384.0f; /* 2^15, FP16 max 65504 */
    *big_b = 2.0f;
  } else {
    *big_a = 1048576.0f; /* 2^20 */
    *big_b = 1.0f;
  }
  if (*b_negative) {
    float t = *big_a;
    *big_a = *big_b;
    *big_b = t;
  }
}

static int probe_fill_one(void *d, lt_fp8 fp8, lt_dtype type,
                          const probe_matrix *m, cudaStream_t stream) {
  int blocks = compare_blocks((size_t)m->ld * m->cols);
  if (fp8 != LT_FP8_NONE)
    probe_fill_fp8_kernel<<<blocks, COMPARE_THREADS, 0, stream>>>(
        (uint8_t *)d, *m, fp8 == LT_FP8_E5M2);
  else
    LT_DISPATCH(type, probe_fill_kernel<T>
                <<<blocks, COMPARE_THREADS, 0, stream>>>((T *)d, *m));
  CUDA_CHECK_KERNEL("probe_fill_kernel");
  return 0;
}

extern "C" int lt_probe_fill(void *d_a, void *d_b, const lt_shape *s,
                             cudaStream_t stream) {
  float big_a = 0.0f, big_b = 0.0f;
  int b_negative = 0;
  probe_bigs(s, &big_a, &big_b, &b_negative);
  /* A stored (lda, transa ? m : k): stored rows k (T) or m (N). */
  probe_matrix a = {0,
                    s->transa,
                    s->lda,
                    s->transa ? s->k : s->m,
                    s->transa ? s->m : s->k,
                    s->k,
                    big_a,
                    !b_negative};
  /* B stored (ldb, transb ? k : n): stored rows n (T) or k (N). */
  probe_matrix b = {1,
                    s->transb,
                    s->ldb,
                    s->transb ? s->n : s->k,
                    s->transb ? s->k : s->n,
                    s->k,
                    big_b,
                    b_negative};
  if (probe_fill_one(d_a, s->a_fp8, s->type, &a, stream) != 0) return -1;
  return probe_fill_one(d_b, s->b_fp8, s->type, &b, stream);
}
