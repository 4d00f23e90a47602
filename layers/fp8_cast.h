/* fp8_cast.h: the FP8 step's own kernels (layers/mlp_fp8.h) and the scaling
 * state they keep: a matrix's cast to FP8 in both layouts at once (ReLU mask
 * or GELU' applied, the bias gradient's partial row sums taken), the transpose
 * of FP8 codes, the amax histories' roll. Scales stay on the GPU. The casts
 * are layers/fp8.h's bit for bit (tests/test_fp8_cast.c). */
#ifndef MNIST_EPILOGS_FP8_CAST_H
#define MNIST_EPILOGS_FP8_CAST_H

#include <cuda_runtime_api.h>
#include <stdbool.h>
#include <stdint.h>

#include "gpu/gpu_early.h"
#include "layers/fp8.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Amax history steps kept (torchao: 16; TE's DelayedScaling default: 1024). */
#define FP8_HISTORY 16

/* One FP8 tensor's scaling state, on the device, 112 bytes: scale_inv, scale
 * and amax 16-byte aligned, as cuBLASLt needs (docs/backprop.md section 12). */
typedef struct fp8_meta {
  float scale_inv;    /* 1 / the scale of the codes: A_SCALE / B_SCALE */
  uint32_t saturated; /* elements the casts lost since the parameters */
  uint32_t flushed;   /* were set: x * scale past the rounding boundary */
  uint32_t nan;       /* or inf (fp8_saturates); x != 0 cast to +-0; NaN */
  float scale;        /* of the next write: the roll's, a GEMM's D_SCALE;
                         a current cast writes its own */
  uint32_t casts;     /* writes by a cast kernel */
  uint32_t bad_amax;  /* rolls, current casts whose amax was not finite */
  uint32_t overflows; /* rolls whose amax times the scale used passed the
                         largest finite value (an FP8 D's only count) */
  float amax;         /* this step's: AMAX_D (overwritten) or the casts'
                         atomicMax of its bits; rolled into history, zeroed */
  uint32_t unused[3];
  float history[FP8_HISTORY]; /* amax of the last FP8_HISTORY steps */
} fp8_meta;

/* What the cast applies to its source first (from the forward's aux). */
typedef enum fp8_mask {
  FP8_MASK_NONE,
  FP8_MASK_RELU, /* x = bit ? x : 0, the aux bit-mask (lt_matmul.h's order) */
  FP8_MASK_GELU  /* x = x * GELU'(z), z the aux (BF16), rounded to BF16 */
} fp8_mask;

/* Columns per tile of the cast: one row of partial sums per tile. */
#define FP8_CAST_TILE 128

/* Tiles of columns of a matrix with `cols` columns. */
static FP8_HOST_DEVICE inline int fp8_cast_tiles(int cols) {
  return (cols + FP8_CAST_TILE - 1) / FP8_CAST_TILE;
}

/* A buffer given (not NULL) on a 16-byte boundary. */
static inline bool fp8_aligned16(const void *p) {
  return p && ((uintptr_t)p & 15u) == 0;
}

/* Every matrix column-major, 16-byte aligned, leading dimensions of 16
 * bytes' multiples, rows a multiple of 16 (fp8_cast_refusal). */
typedef struct fp8_cast_args {
  lt_dtype src_type; /* BF16, or F32 (master weights, no mask) */
  const void *d_src; /* (rows, cols), ld ld_src */
  int ld_src, rows, cols;
  fp8_mask mask;
  const void *d_aux; /* RELU: bit-mask, aux_ld bits a column; GELU: z
                        (rows, cols) BF16, ld aux_ld */
  int aux_ld;
  uint8_t *d_out; /* optional: q (rows, cols), ld ld_out */
  int ld_out;
  uint8_t *d_out_t; /* optional: q^T (cols, rows), ld ld_out_t, rows cols
                       .. lt_ld_fp8(cols) - 1 written 0 (a GEMM's k) */
  int ld_out_t;
  float *d_partials;    /* optional: the (masked) source's row sums per
                           tile, [fp8_cast_tiles(cols)][rows] */
  const float *d_scale; /* delayed: the roll's scale; NULL: current */
  fp8_meta *d_meta;     /* amax max-ed (current: zeroed first), counts,
                           casts, scale and scale_inv written */
  lt_fp8 format;
  int blocks; /* 0: as many as the GPU holds at once; n > 0: at most n */
} fp8_cast_args;

/* The cast of `args` on `stream`: one kernel (delayed), or the amax reset,
 * an amax pass and the cast (current). Returns 0, or -1 (named). */
int fp8_cast(const fp8_cast_args *args, gpu_early_cache *early,
             cudaStream_t stream);

/* NULL when `args` meets the requirements above, else the one it breaks,
 * as a phrase. Host only; touches no memory. */
const char *fp8_cast_refusal(const fp8_cast_args *args);

/* d_out_t (lt_ld_fp8(cols), rows), ld ld_out_t = the transpose of the FP8
 * codes d_in (rows, cols), ld ld_in, its rows cols and on written 0. One
 * kernel on `stream`; returns 0 or -1. */
int fp8_transpose(uint8_t *d_out_t, int ld_out_t, const uint8_t *d_in,
                  int ld_in, int rows, int cols, gpu_early_cache *early,
                  cudaStream_t stream);

/* The roll ending a step: per tensor history[*d_step % FP8_HISTORY] = amax,
 * the next scale from the history (fp8_scale_rule), amax = 0; *d_step += 1.
 * scale_inv follows, except the weights' (their codes' until SGD's rewrite). */
typedef struct fp8_roll_args {
  fp8_meta *d_meta; /* [3 layers], role-major: weights, inputs, gradients */
  int layers;
  lt_fp8 gradient;  /* the gradients' format (the others are E4M3) */
  uint32_t *d_step; /* steps rolled */
} fp8_roll_args;

/* The roll as one block on `stream` (SGD rolls for itself). */
int fp8_roll(const fp8_roll_args *args, gpu_early_cache *early,
             cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
