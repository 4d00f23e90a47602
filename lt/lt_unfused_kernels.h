/* lt_unfused_kernels.h: the kernels of the unfused twin (lt_unfused.h), as
 * a framework without epilogues runs them, written to run at memory speed
 * (one pass over the matrix, 16-byte loads where the layout allows): the
 * comparison with the fused call is only fair if they do.
 *
 * Matrices are column-major (rows, cols) with ld >= rows, of element type
 * `type` (lt_shape.h); arithmetic in float, one rounding per stored value.
 * Each enqueues on `stream` (starting early where `early` allows,
 * gpu/gpu_early.h; NULL: never), checks the launch, and returns 0 or -1
 * (message on stderr). No float atomics: every reduction has a fixed order
 * that depends only on the sizes, so results are bitwise reproducible. */
#ifndef MNIST_EPILOGS_LT_UNFUSED_KERNELS_H
#define MNIST_EPILOGS_LT_UNFUSED_KERNELS_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#include "gpu/gpu_early.h"
#include "lt/lt_shape.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the kernels apply besides the bias or the sum. */
typedef enum lt_act_kernel {
  LT_ACT_NONE, /* nothing: BIAS, BGRADB */
  LT_ACT_RELU, /* the ReLU and its bit-mask (aux_ld bits per column) */
  LT_ACT_GELU  /* GELU, keeping its input (aux_ld elements per column) */
} lt_act_kernel;

/* In place, one pass: z = y + bias[i] (broadcast over columns), then
 *   NONE: y = z (the BIAS step);
 *   RELU: as cuBLASLt's RELU_AUX_BIAS: bit (i, j) = !(z < 0), y = bit ? z :
 *         0 (exact zeros pass, NaN stays NaN), in cuBLASLt's mask layout
 *         (bytes past row m untouched);
 *   GELU: as GELU_AUX_BIAS: aux (i, j) = z and y = GELU(z) (lt_gelu.h),
 *         both stored in `type`.
 * d_aux is the mask or the GELU input, or NULL for NONE. */
int lt_bias_act_forward(lt_dtype type, void *d_y, int ld, const void *d_bias,
                        lt_act_kernel act, void *d_aux, int aux_ld, int m,
                        int n, gpu_early_cache *early, cudaStream_t stream);

/* Scratch the reduction below needs for (m, n): bytes of float partial
 * sums. */
size_t lt_row_sums_scratch(int m, int n);

/* db[i] = sum_j g[i, j] (written, not accumulated, in `type`), in one pass
 * over g, first applying in place
 *   RELU: g[i, j] = 0 where mask bit (i, j) is 0 (the DRELU_BGRAD step);
 *   GELU: g[i, j] *= GELU'(aux (i, j)) (the DGELU_BGRAD step);
 *   NONE: nothing: g is only read (the BGRADB sum).
 * Partial sums of column chunks go to d_scratch (lt_row_sums_scratch
 * bytes, 16-byte aligned), then a second kernel adds them in a fixed order
 * (8 slices of chunks y, y + 8, ..., each in order, then the slices in
 * order): deterministic for given (m, n). */
int lt_row_sums(lt_dtype type, void *d_db, void *d_g, int ld, lt_act_kernel act,
                const void *d_aux, int aux_ld, int m, int n, float *d_scratch,
                gpu_early_cache *early, cudaStream_t stream);

/* lt_row_sums in its two kernels, for a caller that runs them on two
 * streams (GPU_CHAIN_SIDE_PARTIALS): the first applies the activation and
 * writes the partial sums to d_scratch; the second, once they are
 * complete, writes db[i]. Together exactly lt_row_sums (same (m, n), same
 * split, same order of additions). */
int lt_row_sums_partials(lt_dtype type, void *d_g, int ld, lt_act_kernel act,
                         const void *d_aux, int aux_ld, int m, int n,
                         float *d_scratch, gpu_early_cache *early,
                         cudaStream_t stream);
int lt_add_partials(lt_dtype type, void *d_db, const float *d_scratch, int m,
                    int n, gpu_early_cache *early, cudaStream_t stream);

/* An upper bound of lt_row_sums_scratch(m, n) over 1 <= n <= max_n: the
 * bytes of a buffer that serves every batch up to max_n. */
size_t lt_row_sums_scratch_bound(int m, int max_n);

#ifdef __cplusplus
}
#endif

#endif
