/* kernels.h: the few CUDA kernels cuBLASLt cannot do, as C-callable
 * launchers. Each enqueues on `stream`, checks the launch, and returns 0 or
 * -1 (message on stderr). Matrices are column-major (rows, cols) with a
 * leading dimension ld >= rows. None uses float atomics: every reduction has
 * a fixed order, so results are bitwise reproducible.
 */
#ifndef MNIST_EPILOGS_KERNELS_H
#define MNIST_EPILOGS_KERNELS_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Gathers samples d_order[0 .. count) in batches of `batch`: sample j
 * lands in column j % batch of batch j / batch, a (features, batch)
 * col-major matrix starting at d_x + (j / batch) * batch_stride, scaled as
 * pixel * scale + shift; d_y[j] = d_labels[d_order[j]]. One launch for a
 * whole epoch. features % 4 == 0 and 16-byte aligned batches use 4-byte
 * loads and 16-byte stores. */
int gpu_gather_batches(float *d_x, int *d_y, const uint8_t *d_images,
                       const uint8_t *d_labels, const int *d_order, int count,
                       int batch, size_t batch_stride, int features,
                       float scale, float shift, cudaStream_t stream);

/* Softmax cross-entropy over d_logits (classes, n), ld = classes.
 * If d_dlogits: d_dlogits (classes, n) = (softmax - onehot) / n.
 * d_stats[0] += sum of losses, d_stats[1] += number of argmax == label
 * (one block, fixed reduction order: deterministic). */
int gpu_xent_loss_grad(float *d_dlogits, double *d_stats,
                       const float *d_logits, const int *d_labels, int classes,
                       int n, cudaStream_t stream);

/* SGD with momentum over one slab: v = momentum * v + g; p -= lr * v,
 * lr = *d_lr read on the GPU (a schedule changes it without touching a
 * captured graph). With momentum == 0 the velocity is unused: p -= lr * g. */
int gpu_sgd_update(float *d_params, float *d_velocity, const float *d_grads,
                   size_t count, const float *d_lr, float momentum,
                   cudaStream_t stream);

/* Unfused mode, one kernel per epilogue step. */
/* d_y (m, n) += bias[m] broadcast over columns. */
int gpu_bias_add(float *d_y, int ld, const float *d_bias, int m, int n,
                 cudaStream_t stream);
/* In place ReLU and its mask, as cuBLASLt's RELU_AUX_BIAS: with v the value
 * before, bit (i, j) = !(v < 0) and d_y = bit ? v : 0 (exact zeros pass,
 * NaN stays NaN), in cuBLASLt's layout (aux_ld bits per column). Bytes
 * past row m untouched. */
int gpu_relu_mask_forward(float *d_y, int ld, uint8_t *d_mask, int aux_ld,
                          int m, int n, cudaStream_t stream);
/* In place d_g (m, n) *= mask bit (i, j). */
int gpu_relu_mask_backward(float *d_g, int ld, const uint8_t *d_mask,
                           int aux_ld, int m, int n, cudaStream_t stream);
/* d_db[i] = sum_j d_g[i, j] (written, not accumulated). */
int gpu_bias_grad(float *d_db, const float *d_g, int ld, int m, int n,
                  cudaStream_t stream);

/* An empty kernel, for measuring what one dependent launch costs. */
int gpu_empty_kernel(cudaStream_t stream);

/* Helpers for the wrapper's autotune check. */
/* d_dst (m, n) = d_src (m, n). */
int gpu_copy_matrix(float *d_dst, int ld_dst, const float *d_src, int ld_src,
                    int m, int n, cudaStream_t stream);
/* d_out[0] = max |x - y|, d_out[1] = max |y| over (m, n). NaN propagates. */
int gpu_compare_matrices(float *d_out, const float *d_x, int ld_x,
                         const float *d_y, int ld_y, int m, int n,
                         cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
