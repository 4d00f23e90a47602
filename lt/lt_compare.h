/* lt_compare.h: the kernels that compare two candidates' outputs while a
 * plan's candidates are checked (lt_autotune.c), and the probe operands
 * they are also compared on. Each enqueues on `stream`, checks the launch,
 * and returns 0 or -1 (message on stderr). They run once per candidate
 * before training, never in a step. */
#ifndef MNIST_EPILOGS_LT_COMPARE_H
#define MNIST_EPILOGS_LT_COMPARE_H

#include <cuda_runtime_api.h>
#include <stdint.h>

#include "lt/lt_shape.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lt_comparison {
  float max_diff;            /* max |x - y|; NaN when either holds a NaN */
  float max_ref;             /* max |y| */
  unsigned words_differ;     /* elements whose stored bits differ */
  unsigned mask_bits_differ; /* ReLU mask bits (rows < m) that differ */
} lt_comparison;

/* Folds into max_diff, max_ref and words_differ of *d_out (zeroed by the
 * caller: many blocks add to it) x (m, n), ld_x, against y (m, n), ld_y,
 * both of element type `type`. */
int lt_compare_values(lt_comparison *d_out, lt_dtype type, const void *d_x,
                      int ld_x, const void *d_y, int ld_y, int m, int n,
                      cudaStream_t stream);

/* Adds to words_differ of *d_out (zeroed by the caller) the bytes of x
 * (m, n), ld_x bytes, that differ from y's (ld_y): for an FP8 D, compared
 * code for code. */
int lt_compare_bytes(lt_comparison *d_out, const void *d_x, int ld_x,
                     const void *d_y, int ld_y, int m, int n,
                     cudaStream_t stream);

/* Adds to mask_bits_differ of *d_out (zeroed by the caller) the bits (i,
 * j), i < m, j < n, of two cuBLASLt ReLU masks with aux_ld bits per column
 * that differ. Padding bits (rows >= m) are not compared. */
int lt_compare_masks(lt_comparison *d_out, const uint8_t *d_x,
                     const uint8_t *d_y, int aux_ld, int m, int n,
                     cudaStream_t stream);

/* The probe of a call of shape `s` (lt_autotune.h): A and B as stored
 * (A (lda, transa ? m : k), B (ldb, transb ? k : n), of the shape's FP8
 * format or storage type), such that in op(A) op(B) every dot product's
 * first and last terms are +H and -H and the others small pseudo-random
 * values (fixed: the same probe for every candidate); rows past the
 * logical ones zero. For BGRADB, B holds the large factors and the sign
 * (its bias gradient, the sum of op(B) over p, cancels as D does); else A
 * holds the sign. */
int lt_probe_fill(void *d_a, void *d_b, const lt_shape *s, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
