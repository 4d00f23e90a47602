/* sgd_fp8.h: SGD for the FP8 step (layers/mlp_fp8.h): the update of
 * sgd.h, in the same pass writing each weight matrix's FP8 copies in both
 * layouts (W8 for the forward GEMM, W8T for the data GEMM), so the FP8
 * weights cost no pass of their own. The weights' scale comes from their
 * amax history (fp8_cast.h): the new weights' own amax is known only once
 * the pass is over, so it is recorded for the next step. The vectors (the
 * biases) and, where a BF16 call reads them, the weights get their BF16
 * copy as in sgd.h. */
#ifndef MNIST_EPILOGS_SGD_FP8_H
#define MNIST_EPILOGS_SGD_FP8_H

#include "layers/fp8_cast.h"
#include "layers/mlp_layout.h"
#include "layers/sgd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One weight matrix Wt (rows = in, cols = out) of the slab. */
typedef struct sgd_fp8_matrix {
  size_t offset;  /* of Wt in each slab, floats (a multiple of 4) */
  int ld;         /* Wt's leading dimension (lt_ld(in), a multiple of 4) */
  int rows, cols; /* in, out */
  uint8_t *d_w8;  /* (rows, cols), ld ld_w8: written */
  int ld_w8;
  uint8_t *d_w8t; /* (cols, rows), ld ld_w8t: written; NULL: none */
  int ld_w8t;
  fp8_meta *d_meta; /* the weights' scaling state */
} sgd_fp8_matrix;

/* The slab's other elements updated with a BF16 copy: [offset, + length). */
typedef struct sgd_fp8_vector {
  size_t offset;
  int length;
} sgd_fp8_vector;

typedef struct sgd_fp8_args {
  sgd_slabs slabs;  /* type BF16; d_copy the BF16 copy */
  int copy_weights; /* 1: the matrices' BF16 copy is written too */
  int matrices;
  sgd_fp8_matrix m[MLP_MAX_LAYERS];
  int vectors;
  sgd_fp8_vector v[MLP_MAX_LAYERS];
} sgd_fp8_args;

/* The update of sgd_update (same arithmetic, so the same FP32 master
 * weights bit for bit) over every matrix and vector of `args`, and the FP8
 * copies: q = fp8_encode(p * scale) with the E4M3 scale of the matrix's
 * amax history; the new amax and what the casts lost recorded in its
 * fp8_meta (scale and scale_inv written). One kernel on `stream`; returns
 * 0 or -1 (message on stderr). */
int sgd_fp8_update(const sgd_fp8_args *args, const float *d_lr, float momentum,
                   float grad_unscale, gpu_early_cache *early,
                   cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
