/* lt_unfused_kernels.h: the kernels of the unfused twin (lt_unfused.h),
 * one per epilogue step, as a framework without epilogues runs them. Each
 * enqueues on `stream`, checks the launch, and returns 0 or -1 (message on
 * stderr). Matrices are column-major (rows, cols) with ld >= rows. No float
 * atomics: every reduction has a fixed order, so results are bitwise
 * reproducible. */
#ifndef MNIST_EPILOGS_LT_UNFUSED_KERNELS_H
#define MNIST_EPILOGS_LT_UNFUSED_KERNELS_H

#include <cuda_runtime_api.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* d_y (m, n) += bias[m] broadcast over columns. */
int lt_bias_add(float *d_y, int ld, const float *d_bias, int m, int n,
                cudaStream_t stream);

/* In place ReLU and its mask, as cuBLASLt's RELU_AUX_BIAS: with v the value
 * before, bit (i, j) = !(v < 0) and d_y = bit ? v : 0 (exact zeros pass,
 * NaN stays NaN), in cuBLASLt's layout (aux_ld bits per column). Bytes
 * past row m untouched. */
int lt_relu_mask_forward(float *d_y, int ld, uint8_t *d_mask, int aux_ld, int m,
                         int n, cudaStream_t stream);

/* In place d_g (m, n) = 0 where mask bit (i, j) is 0. */
int lt_relu_mask_backward(float *d_g, int ld, const uint8_t *d_mask, int aux_ld,
                          int m, int n, cudaStream_t stream);

/* d_db[i] = sum_j d_g[i, j] (written, not accumulated). */
int lt_bias_grad(float *d_db, const float *d_g, int ld, int m, int n,
                 cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
