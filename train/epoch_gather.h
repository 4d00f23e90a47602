/* epoch_gather.h: the kernels that turn one epoch's samples, in the
 * epoch's order, into normalised batches in the matmul storage type, or
 * into FP8 batches (epoch_data.h). */
#ifndef MNIST_EPILOGS_EPOCH_GATHER_H
#define MNIST_EPILOGS_EPOCH_GATHER_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#include "lt/lt_shape.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Gathers samples d_order[0 .. count) in batches of `batch`: sample j
 * lands in column j % batch of batch j / batch, a (features, batch)
 * col-major matrix with ld lt_ld(features) (= features: no padding
 * rows) starting at d_x + (j / batch) * batch_stride, each
 * pixel as fma(pixel, scale, shift) (mnist_pixel_transform; one
 * rounding) stored in `type`; batch_stride is in elements. d_y[j] =
 * d_labels[d_order[j]]. One launch for a whole epoch, on `stream`. Takes
 * features a multiple of 16 and 16-byte aligned images, d_x and rows (each
 * sample's pixels move as 16-byte vectors); returns 0, or -1 (message on
 * stderr) for others. */
int epoch_gather_batches(lt_dtype type, void *d_x, int *d_y,
                         const uint8_t *d_images, const uint8_t *d_labels,
                         const int *d_order, int count, int batch,
                         size_t batch_stride, int features, float scale,
                         float shift, cudaStream_t stream);

/* The same gather into FP8 batches (layers/mlp_fp8.h): batch b at d_x +
 * b * batch_bytes, its X8 each pixel encode(fma(pixel, scale, shift) *
 * fp8_scale) in E4M3 (the product in FP32, as fp8_encode_scaled), and
 * each batch's X8T (its padding rows zero), in one kernel. Takes features a
 * multiple of 16, at most 1536, and 16-byte aligned images, d_x and
 * batch_bytes; returns 0, or -1 (message on stderr) for others. The scale
 * records are the caller's (they stay). */
int epoch_gather_fp8(void *d_x, int *d_y, const uint8_t *d_images,
                     const uint8_t *d_labels, const int *d_order, int count,
                     int batch, size_t batch_bytes, int features, float scale,
                     float shift, float fp8_scale, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
