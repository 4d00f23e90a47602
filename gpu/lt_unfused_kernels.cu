/* lt_unfused_kernels.cu: the unfused twin's kernels (see
 * lt_unfused_kernels.h). */
#include <stdio.h>

#include "gpu_check.h"
#include "gpu_grid.h"

#include "lt_unfused_kernels.h"

__global__ void bias_add_kernel(float *y, int ld, const float *bias, int m,
                                int n) {
  size_t total = (size_t)m * n;
  for (size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x; t < total;
       t += (size_t)gridDim.x * blockDim.x) {
    int i = (int)(t % m);
    size_t j = t / m;
    y[j * ld + i] += bias[i];
  }
}

extern "C" int lt_bias_add(float *d_y, int ld, const float *d_bias, int m,
                           int n, cudaStream_t stream) {
  bias_add_kernel<<<gpu_grid_blocks((size_t)m * n, 256), 256, 0, stream>>>(
      d_y, ld, d_bias, m, n);
  CUDA_CHECK_KERNEL("bias_add_kernel");
  return 0;
}

/* One thread per mask byte: rows 8b .. 8b+7 of column j. */
__global__ void relu_mask_forward_kernel(float *y, int ld, uint8_t *mask,
                                         int aux_bytes, int m, int n) {
  int bytes_per_col = (m + 7) / 8;
  size_t total = (size_t)bytes_per_col * n;
  for (size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x; t < total;
       t += (size_t)gridDim.x * blockDim.x) {
    int b = (int)(t % bytes_per_col);
    size_t j = t / bytes_per_col;
    float *col = y + j * ld;
    unsigned bits = 0;
    for (int r = 0; r < 8; r++) {
      int i = 8 * b + r;
      if (i < m) {
        float v = col[i];
        /* "not below 0", as cuBLASLt's RELU_AUX_BIAS (measured on the
         * H200): an exact zero passes the gradient, and a NaN passes
         * through as NaN, so divergence reaches the loss in both modes. */
        int pass = !(v < 0.0f);
        if (pass) bits |= 1u << r;
        col[i] = pass ? v : 0.0f;
      }
    }
    mask[j * aux_bytes + b] = (uint8_t)bits;
  }
}

extern "C" int lt_relu_mask_forward(float *d_y, int ld, uint8_t *d_mask,
                                    int aux_ld, int m, int n,
                                    cudaStream_t stream) {
  size_t total = (size_t)((m + 7) / 8) * n;
  relu_mask_forward_kernel<<<gpu_grid_blocks(total, 256), 256, 0, stream>>>(
      d_y, ld, d_mask, aux_ld / 8, m, n);
  CUDA_CHECK_KERNEL("relu_mask_forward_kernel");
  return 0;
}

__global__ void relu_mask_backward_kernel(float *g, int ld, const uint8_t *mask,
                                          int aux_bytes, int m, int n) {
  size_t total = (size_t)m * n;
  for (size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x; t < total;
       t += (size_t)gridDim.x * blockDim.x) {
    int i = (int)(t % m);
    size_t j = t / m;
    int bit = (mask[j * aux_bytes + i / 8] >> (i % 8)) & 1;
    if (!bit) g[j * ld + i] = 0.0f;
  }
}

extern "C" int lt_relu_mask_backward(float *d_g, int ld, const uint8_t *d_mask,
                                     int aux_ld, int m, int n,
                                     cudaStream_t stream) {
  relu_mask_backward_kernel<<<gpu_grid_blocks((size_t)m * n, 256), 256, 0,
                              stream>>>(d_g, ld, d_mask, aux_ld / 8, m, n);
  CUDA_CHECK_KERNEL("relu_mask_backward_kernel");
  return 0;
}

enum { BGRAD_ROWS = 32, BGRAD_SLICES = 16 };

/* Block (32, 16): 32 rows, 16 slices of columns each summed in order, then
 * the 16 partials summed in a fixed order. */
__global__ void bias_grad_kernel(float *db, const float *g, int ld, int m,
                                 int n) {
  __shared__ float part[BGRAD_SLICES][BGRAD_ROWS];
  int i = blockIdx.x * BGRAD_ROWS + threadIdx.x;
  float sum = 0.0f;
  if (i < m)
    for (int j = threadIdx.y; j < n; j += BGRAD_SLICES)
      sum += g[(size_t)j * ld + i];
  part[threadIdx.y][threadIdx.x] = sum;
  __syncthreads();
  if (threadIdx.y == 0 && i < m) {
    float total = 0.0f;
    for (int s = 0; s < BGRAD_SLICES; s++)
      total += part[s][threadIdx.x];
    db[i] = total;
  }
}

extern "C" int lt_bias_grad(float *d_db, const float *d_g, int ld, int m, int n,
                            cudaStream_t stream) {
  dim3 block(BGRAD_ROWS, BGRAD_SLICES);
  bias_grad_kernel<<<(m + BGRAD_ROWS - 1) / BGRAD_ROWS, block, 0, stream>>>(
      d_db, d_g, ld, m, n);
  CUDA_CHECK_KERNEL("bias_grad_kernel");
  return 0;
}
