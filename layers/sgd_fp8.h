/* sgd_fp8.h: SGD for the FP8 step (layers/mlp_fp8.h): sgd.h's update that in
 * the same pass writes each weight matrix's FP8 copies (W8, W8T) at the last
 * roll's scale (their new amax recorded for the next), sums the bias gradients
 * from the casts' partial sums (fp8_cast.h) and, in its last block, rolls every
 * tensor's history. The biases get their BF16 copy as in sgd.h. */
#ifndef MNIST_EPILOGS_SGD_FP8_H
#define MNIST_EPILOGS_SGD_FP8_H

#include "layers/fp8_cast.h"
#include "layers/mlp_layout.h"
#include "layers/sgd.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One weight matrix Wt (rows = in, cols = out, multiples of 4). */
typedef struct sgd_fp8_matrix {
  size_t offset;  /* of Wt in each slab, floats (a multiple of 4) */
  int ld;         /* Wt's leading dimension (lt_ld(in), a multiple of 4) */
  int rows, cols; /* in, out */
  uint8_t *d_w8;  /* (rows, cols), ld ld_w8: written */
  int ld_w8;
  uint8_t *d_w8t; /* (cols, rows), ld ld_w8t: written; NULL: none */
  int ld_w8t;
  fp8_meta *d_meta; /* scale read; amax, counts recorded; scale_inv = 1/scale */
} sgd_fp8_matrix;

/* The slab's other elements, [offset, + length), updated with a BF16 copy.
 * With d_partials ([tiles][length], fp8_cast.h) their gradient is the FP32 sum
 * in tile order, rounded once to BF16 and written (=) into the gradient slab
 * (d_grads); without, d_grads is read. */
typedef struct sgd_fp8_vector {
  size_t offset;
  int length;
  const float *d_partials;
  int tiles;
} sgd_fp8_vector;

typedef struct sgd_fp8_args {
  sgd_slabs slabs; /* type BF16; d_copy the BF16 copy; d_grads written
                      where a vector sums its partials */
  int matrices;
  sgd_fp8_matrix m[MLP_MAX_LAYERS];
  int vectors;
  sgd_fp8_vector v[MLP_MAX_LAYERS];
  fp8_roll_args roll;   /* the roll after the update (d_meta NULL: none) */
  uint32_t *d_finished; /* with a roll: finished blocks, 0 between passes */
} sgd_fp8_args;

/* sgd_update's arithmetic (same FP32 master weights, bit for bit) over `args`,
 * the FP8 copies q = fp8_encode(p * scale), amax, losses recorded; the last
 * block (a counter after a fence) rolls. One kernel on `stream`; 0 or -1. */
int sgd_fp8_update(const sgd_fp8_args *args, const float *d_lr, float momentum,
                   float grad_unscale, gpu_early_cache *early,
                   cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
