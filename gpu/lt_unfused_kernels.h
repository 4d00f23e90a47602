/* lt_unfused_kernels.h: the kernels of the unfused twin (lt_unfused.h), as
 * a framework without epilogues runs them, written to run at memory speed
 * (one pass over the matrix, 16-byte loads where the layout allows): the
 * comparison with the fused call is only fair if they do.
 *
 * Matrices are column-major (rows, cols) with ld >= rows, of element type
 * `type` (lt_shape.h); arithmetic in float, one rounding per stored value.
 * Each enqueues on `stream`, checks the launch, and returns 0 or -1
 * (message on stderr). No float atomics: every reduction has a fixed order
 * that depends only on the sizes, so results are bitwise reproducible. */
#ifndef MNIST_EPILOGS_LT_UNFUSED_KERNELS_H
#define MNIST_EPILOGS_LT_UNFUSED_KERNELS_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#include "lt_shape.h"

#ifdef __cplusplus
extern "C" {
#endif

/* In place, one pass: z = y + bias[i] (broadcast over columns); without a
 * mask y = z (the BIAS step); with one, as cuBLASLt's RELU_AUX_BIAS: bit
 * (i, j) = !(z < 0) and y = bit ? z : 0 (exact zeros pass, NaN stays NaN),
 * in cuBLASLt's layout (aux_ld bits per column; bytes past row m
 * untouched). */
int lt_bias_act_forward(lt_dtype type, void *d_y, int ld, const void *d_bias,
                        uint8_t *d_mask, int aux_ld, int m, int n,
                        cudaStream_t stream);

/* Scratch the reduction below needs for (m, n): bytes of float partial
 * sums. */
size_t lt_row_sums_scratch(int m, int n);

/* db[i] = sum_j g[i, j] (written, not accumulated, in `type`), in one pass
 * over g; with a mask, first g[i, j] = 0 where bit (i, j) is 0 (in place:
 * the DRELU_BGRAD step), without one g is only read. Partial sums of
 * column chunks go to d_scratch (lt_row_sums_scratch bytes, 16-byte
 * aligned), then a second kernel adds them in chunk order. */
int lt_row_sums(lt_dtype type, void *d_db, void *d_g, int ld,
                const uint8_t *d_mask, int aux_ld, int m, int n,
                float *d_scratch, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
