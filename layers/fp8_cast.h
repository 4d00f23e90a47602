/* fp8_cast.h: the FP8 step's own kernels (layers/mlp_fp8.h): the cast of a
 * BF16 or FP32 matrix to FP8 in both layouts at once (the copy the TN GEMMs
 * read as A, and its transpose), with the ReLU mask or GELU derivative of
 * the backward applied on the way, the bias gradient's partial row sums,
 * the tensor's amax and what the cast lost; the bias gradient from those
 * partials; and the per-step roll of the amax histories. Every scale stays
 * on the GPU: a cast reads its scale from the tensor's fp8_meta and writes
 * the scale_inv the GEMM's A_SCALE / B_SCALE pointer reads.
 *
 * The casts are layers/fp8.h's, bit for bit: scale = fp8_scale_from_amax
 * (a power of two), q = fp8_encode(x * scale) (round to nearest even,
 * saturating), counted by fp8_counts' rules (tests/test_fp8_cast.c).
 */
#ifndef MNIST_EPILOGS_FP8_CAST_H
#define MNIST_EPILOGS_FP8_CAST_H

#include <cuda_runtime_api.h>
#include <stdint.h>

#include "gpu/gpu_early.h"
#include "layers/fp8.h"
#include "lt/lt_shape.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Steps of amax history that delayed scaling keeps (Transformer Engine's
 * DelayedScaling keeps a configurable history, 1024 by default; torchao's
 * delayed scaling, now removed, kept 16). */
#define FP8_HISTORY 16

/* One FP8 tensor's scaling state, on the device: 96 bytes, so in an array
 * from a 16-byte aligned base every scale_inv (the first field) is 16-byte
 * aligned, as cuBLASLt's scale pointers are kept (lt_matmul_check). */
typedef struct fp8_meta {
  float scale_inv;    /* 1 / scale: what the GEMM's scale pointer reads */
  float scale;        /* the scale of the last cast: q = encode(x * scale) */
  uint32_t amax_bits; /* this step's amax so far (float bits, atomicMax);
                         fp8_scales_roll moves it into the history */
  uint32_t saturated; /* fp8_counts, summed over every cast since */
  uint32_t flushed;   /* creation (or the last fp8_meta reset) */
  uint32_t nan;
  uint32_t casts;             /* casts counted */
  uint32_t bad_amax;          /* casts whose amax was NaN or inf: scale kept */
  float history[FP8_HISTORY]; /* amax of the last FP8_HISTORY steps */
} fp8_meta;

/* What the cast applies to its source before it casts (the backward's
 * activation gradient, from the forward's aux). */
typedef enum fp8_mask {
  FP8_MASK_NONE,
  FP8_MASK_RELU, /* x = bit ? x : 0, the aux bit-mask (lt_matmul.h's order) */
  FP8_MASK_GELU  /* x = x * GELU'(z), z the aux (BF16), rounded to BF16 */
} fp8_mask;

/* Columns per tile of the cast: the bias gradient's partial sums come in
 * one row of `rows` floats per tile of columns. */
#define FP8_CAST_TILE 64

/* Tiles of columns of a matrix with `cols` columns. */
int fp8_cast_tiles(int cols);

typedef struct fp8_cast_args {
  lt_dtype src_type; /* BF16 (activations, gradients) or F32 (master
                        weights) */
  const void *d_src; /* (rows, cols) col-major, ld ld_src */
  int ld_src, rows, cols;
  fp8_mask mask;
  const void *d_aux; /* RELU: the bit-mask, aux_ld bits per column; GELU:
                        z (rows, cols) BF16, aux_ld elements per column */
  int aux_ld;
  void *d_masked; /* optional: the masked source written back, (rows,
                     cols) ld ld_src in src_type (for a BF16 GEMM that
                     reads it); NULL: not written */
  uint8_t *d_out; /* optional: q (rows, cols), ld ld_out */
  int ld_out;
  uint8_t *d_out_t; /* optional: q transposed, (cols, rows), ld ld_out_t */
  int ld_out_t;
  float *d_partials; /* optional: row sums of the (masked) source per tile
                        of columns, [fp8_cast_tiles(cols)][rows] */
  fp8_meta *d_meta;  /* the tensor's scaling state */
  fp8_format format;
  int current; /* 1: scale from this cast's own amax (an amax pass
                  first); 0: from the history's max (delayed) */
} fp8_cast_args;

/* The cast of fp8_cast_args, on `stream`: current scaling zeroes the
 * tensor's amax and runs two kernels (the amax, then the cast), delayed
 * one. Either way the cast
 * records the tensor's amax into d_meta->amax_bits (max, for the history)
 * and counts what it lost. Writes d_meta->scale and scale_inv. Returns 0,
 * or -1 (message on stderr). */
int fp8_cast(const fp8_cast_args *args, gpu_early_cache *early,
             cudaStream_t stream);

/* d_db[r] (BF16) = sum over the tiles of d_partials[t][r], in tile order,
 * for r < rows, with `tiles` = fp8_cast_tiles of the batch. On `stream`. */
int fp8_bias_grad(void *d_db, const float *d_partials, int rows, int tiles,
                  cudaStream_t stream);

/* For each of `count` tensors: history[*d_step % FP8_HISTORY] = this
 * step's amax, amax = 0; then *d_step += 1. One block, on `stream`. */
int fp8_scales_roll(fp8_meta *d_meta, int count, uint32_t *d_step,
                    cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
