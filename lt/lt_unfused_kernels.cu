/* lt_unfused_kernels.cu: the unfused twin's kernels (see
 * lt_unfused_kernels.h). A thread owns 8 consecutive rows of a column:
 * one byte of the ReLU mask, and one 16-byte load of 16-bit values (two
 * of floats) when ld and the pointers allow it. */
#include <stdio.h>

#include "gpu/gpu_check.h"
#include "gpu/gpu_grid.h"
#include "gpu/gpu_launch.cuh"
#include "lt/lt_gelu.h"
#include "lt/lt_types.cuh"

#include "lt/lt_unfused_kernels.h"

/* Eight values, 16-byte aligned: one or two vector loads. */
template <typename T> struct __align__(16) pack8 {
  T v[8];
};

/* Rows 8g .. 8g+7 of a column into float, vector load when `vec` (all 8
 * rows exist and the address is 16-byte aligned). */
template <typename T>
__device__ __forceinline__ void load8(float *out, const T *p, int rows,
                                      bool vec) {
  if (vec) {
    pack8<T> pk = *(const pack8<T> *)p;
#pragma unroll
    for (int r = 0; r < 8; r++)
      out[r] = lt_to_float(pk.v[r]);
  } else {
#pragma unroll
    for (int r = 0; r < 8; r++)
      out[r] = r < rows ? lt_to_float(p[r]) : 0.0f;
  }
}

template <typename T>
__device__ __forceinline__ void store8(T *p, const float *in, int rows,
                                       bool vec) {
  if (vec) {
    pack8<T> pk;
#pragma unroll
    for (int r = 0; r < 8; r++)
      pk.v[r] = lt_from_float<T>(in[r]);
    *(pack8<T> *)p = pk;
  } else {
#pragma unroll
    for (int r = 0; r < 8; r++)
      if (r < rows) p[r] = lt_from_float<T>(in[r]);
  }
}

static bool aligned16(const void *p) {
  return ((uintptr_t)p & 15u) == 0;
}

/* Vector access is safe for every full group when each column starts on a
 * 16-byte boundary: ld a multiple of 8 elements and the base aligned. */
static bool vector_ok(const void *base, int ld) {
  return aligned16(base) && ld % 8 == 0;
}

template <typename T>
__global__ void bias_act_kernel(T *y, int ld, const T *bias, lt_act_kernel act,
                                void *aux, int aux_ld, int m, int n, bool vec,
                                int trigger) {
  gpu_wait_previous();
  gpu_allow_next(trigger);
  int groups = (m + 7) / 8;
  size_t total = (size_t)groups * n;
  for (size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x; t < total;
       t += (size_t)gridDim.x * blockDim.x) {
    int g = (int)(t % groups);
    size_t j = t / groups;
    int rows = min(8, m - 8 * g);
    bool full = vec && rows == 8;
    float z[8], b[8];
    T *col = y + j * ld + 8 * g;
    load8(z, col, rows, full);
    load8(b, bias + 8 * g, rows, full);
    unsigned bits = 0;
#pragma unroll
    for (int r = 0; r < 8; r++)
      z[r] += b[r];
    if (act == LT_ACT_GELU) {
      /* The GELU input is kept as stored (rounded once), the output from
       * the float z, as cuBLASLt's GELU_AUX_BIAS does. */
      store8((T *)aux + j * aux_ld + 8 * g, z, rows, full);
#pragma unroll
      for (int r = 0; r < 8; r++)
        z[r] = lt_gelu(z[r]);
    }
#pragma unroll
    for (int r = 0; r < 8; r++) {
      if (act == LT_ACT_RELU) {
        /* "not below 0", as cuBLASLt's RELU_AUX_BIAS (measured on the
         * H200): an exact zero passes the gradient, and a NaN passes
         * through as NaN, so divergence reaches the loss in both modes. */
        int pass = !(z[r] < 0.0f);
        bits |= (unsigned)(pass && r < rows) << r;
        z[r] = pass ? z[r] : 0.0f;
      }
    }
    store8(col, z, rows, full);
    if (act == LT_ACT_RELU)
      ((uint8_t *)aux)[j * (size_t)(aux_ld / 8) + g] = (uint8_t)bits;
  }
}

extern "C" int lt_bias_act_forward(lt_dtype type, void *d_y, int ld,
                                   const void *d_bias, lt_act_kernel act,
                                   void *d_aux, int aux_ld, int m, int n,
                                   gpu_early_cache *early,
                                   cudaStream_t stream) {
  size_t total = (size_t)((m + 7) / 8) * n;
  bool vec = vector_ok(d_y, ld) && aligned16(d_bias) &&
             (act != LT_ACT_GELU || vector_ok(d_aux, aux_ld));
  LT_DISPATCH(type,
              gpu_launch(early, bias_act_kernel<T>,
                         dim3(gpu_grid_blocks(total, 256)), dim3(256), stream,
                         (T *)d_y, ld, (const T *)d_bias, act, d_aux, aux_ld, m,
                         n, vec, gpu_early_trigger(early)));
  CUDA_CHECK_KERNEL("bias_act_kernel");
  return 0;
}

/* Row sums: a block is 32 groups of 8 rows x 8 slices of columns over one
 * chunk of columns; grid (row blocks, chunks). Each thread sums its slice
 * (columns start + s, start + s + 8, ...) in order, the 8 slices are added
 * in order in shared memory, and partial[chunk][row] is written.
 * SUM_TARGET_BLOCKS: a thread has one 16-byte load in flight per column,
 * so memory speed takes many threads: 1056 blocks (8 per SM of an H200;
 * at 48 registers per thread 5 fit at once, so about 1.6 waves) took the
 * 4096 x 4096 BF16 pass from 31 us with 264 blocks to 22 us (ncu,
 * docs/performance.md). */
enum {
  SUM_GROUPS = 32,
  SUM_SLICES = 8,
  SUM_TARGET_BLOCKS = 1056,
  SUM_MAX_CHUNKS = 128
};

template <typename T>
__global__ void row_sums_kernel(float *partial, T *g, int ld, lt_act_kernel act,
                                const void *aux, int aux_ld, int m, int n,
                                int chunk, bool vec, int trigger) {
  gpu_wait_previous();
  gpu_allow_next(trigger);
  __shared__ float part[SUM_SLICES][SUM_GROUPS * 8];
  int group = blockIdx.x * SUM_GROUPS + threadIdx.x;
  int rows = group * 8 < m ? min(8, m - 8 * group) : 0;
  bool full = vec && rows == 8;
  float sum[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int start = blockIdx.y * chunk, end = min(n, start + chunk);
  if (rows > 0)
    for (int j = start + threadIdx.y; j < end; j += SUM_SLICES) {
      float v[8];
      T *col = g + (size_t)j * ld + 8 * group;
      load8(v, col, rows, full);
      if (act == LT_ACT_RELU) {
        unsigned bits =
            ((const uint8_t *)aux)[(size_t)j * (aux_ld / 8) + group];
#pragma unroll
        for (int r = 0; r < 8; r++)
          v[r] = (bits >> r & 1u) ? v[r] : 0.0f;
        store8(col, v, rows, full);
      } else if (act == LT_ACT_GELU) {
        float z[8];
        load8(z, (const T *)aux + (size_t)j * aux_ld + 8 * group, rows, full);
#pragma unroll
        for (int r = 0; r < 8; r++)
          v[r] *= lt_gelu_grad(z[r]);
        store8(col, v, rows, full);
      }
#pragma unroll
      for (int r = 0; r < 8; r++)
        sum[r] += v[r];
    }
#pragma unroll
  for (int r = 0; r < 8; r++)
    part[threadIdx.y][threadIdx.x * 8 + r] = sum[r];
  __syncthreads();
  int tid = threadIdx.y * SUM_GROUPS + threadIdx.x; /* 0 .. 255 */
  int row = blockIdx.x * SUM_GROUPS * 8 + tid;
  if (row < m) {
    float total = 0.0f;
    for (int s = 0; s < SUM_SLICES; s++)
      total += part[s][tid];
    partial[(size_t)blockIdx.y * m + row] = total;
  }
}

/* db[i] = the sum over chunks of partial[chunk][i]. A block is 32 rows x 8
 * slices of chunks (chunks y, y + 8, ...); the slices are added in order in
 * shared memory, so the sum's order depends only on (m, chunks). */
enum { ADD_ROWS = 32, ADD_SLICES = 8 };

template <typename T>
__global__ void add_partials_kernel(T *db, const float *partial, int m,
                                    int chunks, int trigger) {
  gpu_wait_previous();
  gpu_allow_next(trigger);
  __shared__ float part[ADD_SLICES][ADD_ROWS];
  int i = blockIdx.x * ADD_ROWS + threadIdx.x;
  float total = 0.0f;
  if (i < m)
    for (int c = threadIdx.y; c < chunks; c += ADD_SLICES)
      total += partial[(size_t)c * m + i];
  part[threadIdx.y][threadIdx.x] = total;
  __syncthreads();
  if (threadIdx.y != 0 || i >= m) return;
  total = 0.0f;
  for (int s = 0; s < ADD_SLICES; s++)
    total += part[s][threadIdx.x];
  db[i] = lt_from_float<T>(total);
}

/* Chunks of columns: enough blocks to fill the GPU, each chunk a multiple
 * of 8 columns, at most SUM_MAX_CHUNKS chunks (so that adding the
 * partials stays short: 512 chunks for m = 10 made it a 15 us kernel).
 * Depends only on (m, n). */
static void row_sums_split(int m, int n, int *chunks, int *chunk) {
  int row_blocks = (m + SUM_GROUPS * 8 - 1) / (SUM_GROUPS * 8);
  int want = (SUM_TARGET_BLOCKS + row_blocks - 1) / row_blocks;
  if (want > SUM_MAX_CHUNKS) want = SUM_MAX_CHUNKS;
  int max_chunks = (n + SUM_SLICES - 1) / SUM_SLICES;
  int c = want < max_chunks ? want : max_chunks;
  int size = (n + c - 1) / c;
  size = (size + SUM_SLICES - 1) / SUM_SLICES * SUM_SLICES;
  *chunk = size;
  *chunks = (n + size - 1) / size;
}

extern "C" size_t lt_row_sums_scratch(int m, int n) {
  int chunks, chunk;
  row_sums_split(m, n, &chunks, &chunk);
  return (size_t)chunks * m * sizeof(float);
}

extern "C" size_t lt_row_sums_scratch_bound(int m, int max_n) {
  /* row_sums_split: chunks <= min(SUM_MAX_CHUNKS, ceil(n / 8)), which
   * grows with n. */
  size_t chunks = (size_t)(max_n + SUM_SLICES - 1) / SUM_SLICES;
  if (chunks > SUM_MAX_CHUNKS) chunks = SUM_MAX_CHUNKS;
  return chunks * (size_t)m * sizeof(float);
}

extern "C" int lt_row_sums_partials(lt_dtype type, void *d_g, int ld,
                                    lt_act_kernel act, const void *d_aux,
                                    int aux_ld, int m, int n, float *d_scratch,
                                    gpu_early_cache *early,
                                    cudaStream_t stream) {
  int chunks, chunk;
  row_sums_split(m, n, &chunks, &chunk);
  dim3 block(SUM_GROUPS, SUM_SLICES);
  dim3 grid((m + SUM_GROUPS * 8 - 1) / (SUM_GROUPS * 8), chunks);
  bool vec =
      vector_ok(d_g, ld) && (act != LT_ACT_GELU || vector_ok(d_aux, aux_ld));
  LT_DISPATCH(type, gpu_launch(early, row_sums_kernel<T>, grid, block, stream,
                               d_scratch, (T *)d_g, ld, act, d_aux, aux_ld, m,
                               n, chunk, vec, gpu_early_trigger(early)));
  CUDA_CHECK_KERNEL("row_sums_kernel");
  return 0;
}

extern "C" int lt_add_partials(lt_dtype type, void *d_db,
                               const float *d_scratch, int m, int n,
                               gpu_early_cache *early, cudaStream_t stream) {
  int chunks, chunk;
  row_sums_split(m, n, &chunks, &chunk);
  LT_DISPATCH(type, gpu_launch(early, add_partials_kernel<T>,
                               dim3((m + ADD_ROWS - 1) / ADD_ROWS),
                               dim3(ADD_ROWS, ADD_SLICES), stream, (T *)d_db,
                               d_scratch, m, chunks, gpu_early_trigger(early)));
  CUDA_CHECK_KERNEL("add_partials_kernel");
  return 0;
}

extern "C" int lt_row_sums(lt_dtype type, void *d_db, void *d_g, int ld,
                           lt_act_kernel act, const void *d_aux, int aux_ld,
                           int m, int n, float *d_scratch,
                           gpu_early_cache *early, cudaStream_t stream) {
  if (lt_row_sums_partials(type, d_g, ld, act, d_aux, aux_ld, m, n, d_scratch,
                           early, stream) != 0)
    return -1;
  return lt_add_partials(type, d_db, d_scratch, m, n, early, stream);
}
