/* fp8_cast.h: the FP8 step's own kernels (layers/mlp_fp8.h) and the
 * scaling state they keep: the cast of a BF16 or FP32 matrix to FP8 in
 * both layouts at once, the backward's ReLU mask or GELU' applied on the
 * way and the bias gradient's partial row sums taken; the transpose of
 * FP8 codes; the roll of the amax histories. Every scale stays on the GPU:
 * a delayed cast reads the scale the roll computed once per step, a
 * current one takes its own amax first; each writes the scale_inv its
 * codes need and counts what it lost. The casts are layers/fp8.h's, bit
 * for bit (tests/test_fp8_cast.c). */
#ifndef MNIST_EPILOGS_FP8_CAST_H
#define MNIST_EPILOGS_FP8_CAST_H

#include <cuda_runtime_api.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gpu/gpu_early.h"
#include "layers/fp8.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Steps of amax history that delayed scaling keeps (Transformer Engine's
 * DelayedScaling keeps a configurable history, 1024 by default; torchao's
 * delayed scaling, now removed, kept 16). */
#define FP8_HISTORY 16

/* One FP8 tensor's scaling state, on the device, 112 bytes: in an array
 * from a 16-byte aligned base, scale_inv, scale and amax each sit on a
 * 16-byte boundary, as cuBLASLt's scale and amax pointers must (a scale
 * pointer 4 bytes off one made cublasLtMatmul return NOT_SUPPORTED,
 * measured on the H200). */
typedef struct fp8_meta {
  float scale_inv;    /* 1 / the scale the tensor's codes were written
                         with: what a GEMM's A_SCALE / B_SCALE reads */
  uint32_t saturated; /* what the casts lost, per element x, summed since */
  uint32_t flushed;   /* the network was created or its parameters set: */
  uint32_t nan;       /* x * scale beyond the rounding boundary (E4M3 464,
                         E5M2 61440) or inf; x finite, non-zero and its
                         code +-0; x * scale NaN (fp8_saturates) */
  float scale;        /* the scale of the next write: the roll's (delayed),
                         a GEMM's D_SCALE; a current cast writes its own */
  uint32_t casts;     /* writes by a cast kernel */
  uint32_t bad_amax;  /* rolls and current casts whose amax was NaN or
                         infinite: the scale kept */
  uint32_t overflows; /* rolls whose amax times the scale used passed the
                         largest finite value: values saturated (a GEMM's
                         FP8 output is counted only this way) */
  float amax;         /* this step's amax: a GEMM's AMAX_D (overwritten),
                         or the max of the casts' (atomicMax of the bits:
                         non-negative floats order as their bits); the
                         roll moves it into the history and zeroes it */
  uint32_t unused[3];
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
#define FP8_CAST_TILE 128

/* Tiles of columns of a matrix with `cols` columns. */
static FP8_HOST_DEVICE inline int fp8_cast_tiles(int cols) {
  return (cols + FP8_CAST_TILE - 1) / FP8_CAST_TILE;
}

/* A buffer given (not NULL) on a 16-byte boundary, as every buffer of the
 * cast and the transpose must be. */
static inline bool fp8_aligned16(const void *p) {
  return p && ((uintptr_t)p & 15u) == 0;
}

/* Every matrix is column-major, 16-byte aligned, with leading dimensions
 * of 16 bytes' multiples; rows a multiple of 16 (an FP8 network's widths:
 * mlp_create refuses others). */
typedef struct fp8_cast_args {
  lt_dtype src_type; /* BF16 (activations, gradients) or F32 (master
                        weights, no mask) */
  const void *d_src; /* (rows, cols), ld ld_src */
  int ld_src, rows, cols;
  fp8_mask mask;
  const void *d_aux; /* RELU: the bit-mask, aux_ld bits per column; GELU:
                        z (rows, cols) BF16, aux_ld elements per column */
  int aux_ld;
  uint8_t *d_out; /* optional: q (rows, cols), ld ld_out */
  int ld_out;
  uint8_t *d_out_t; /* optional: q transposed, (cols, rows), ld ld_out_t:
                       rows cols .. lt_ld_fp8(cols) - 1 written 0 (the
                       padding a weight GEMM's k reads) */
  int ld_out_t;
  float *d_partials;    /* optional: row sums of the (masked) source per tile
                           of columns, [fp8_cast_tiles(cols)][rows] */
  const float *d_scale; /* delayed: the scale to cast with (the tensor's
                           fp8_meta.scale, from the roll); NULL: current
                           scaling (an amax pass first) */
  fp8_meta *d_meta;     /* written: amax (max-ed; zeroed first under
                           current scaling), counts, casts, scale and
                           scale_inv of this cast */
  lt_fp8 format;
  int blocks; /* 0: as many blocks as the GPU holds at once, each casting
                 every gridDim-th tile of 32 rows x FP8_CAST_TILE columns;
                 n > 0: at most n (tests: several tiles a block) */
} fp8_cast_args;

/* The cast of `args` on `stream`: one kernel (delayed), or a reset of the
 * amax, the amax pass and the cast (current). Returns 0, or -1 with a
 * message naming the broken requirement. */
int fp8_cast(const fp8_cast_args *args, gpu_early_cache *early,
             cudaStream_t stream);

/* NULL when `args` meets the requirements above, else the one it breaks,
 * as a phrase ("a BF16 or FP32 source"). Host only; touches no memory. */
const char *fp8_cast_refusal(const fp8_cast_args *args);

/* d_out_t (lt_ld_fp8(cols), rows), ld ld_out_t = the transpose of d_in
 * (rows, cols), ld ld_in, FP8 codes, its rows cols .. lt_ld_fp8(cols) - 1
 * written 0; `count` such matrices, the k-th at d_in + k * stride_in and
 * d_out_t + k * stride_out (bytes). One kernel on `stream`; returns 0 or
 * -1. */
int fp8_transpose(uint8_t *d_out_t, int ld_out_t, const uint8_t *d_in,
                  int ld_in, int rows, int cols, int count, size_t stride_in,
                  size_t stride_out, gpu_early_cache *early,
                  cudaStream_t stream);

/* The scaling state of a network's FP8 tensors and the roll that ends a
 * step: for each tensor, history[*d_step % FP8_HISTORY] = amax, the next
 * scale from the history (fp8_scale_rule), amax = 0; then *d_step += 1.
 * The inputs' and gradients' scale_inv becomes 1 / the new scale (their
 * codes are written anew before they are read); the weights' stays the
 * scale their codes were written with, until SGD writes them again. */
typedef struct fp8_roll_args {
  fp8_meta *d_meta; /* [3 layers]: the weights', the inputs', then the
                       gradients' of layers 0, 1, ... */
  int layers;
  lt_fp8 gradient;  /* the gradients' format (the others are E4M3) */
  uint32_t *d_step; /* steps rolled */
} fp8_roll_args;

/* The roll as one block on `stream` (SGD's pass rolls for itself:
 * sgd_fp8.h). Returns 0 or -1. */
int fp8_roll(const fp8_roll_args *args, gpu_early_cache *early,
             cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
