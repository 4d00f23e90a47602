/* fp8.h: the OCP FP8 formats (OFP8 1.0; cuda_fp8.h's __NV_E4M3, __NV_E5M2),
 * their casts with per-tensor scales and the scale rule: the plain-C reference
 * the oracle and the GPU's FP8 kernels are held to bit for bit. Plain C.
 *   E4M3: bias 7, 3 mantissa bits, max 448, no inf, NaN only S.1111.111;
 *   E5M2: bias 15, 2 mantissa bits, max 57344, IEEE-like inf and NaN;
 *   min normal 2^-6 and 2^-14, subnormals m 2^-9 and m 2^-16 respectively.
 * Stored as q = encode(x * scale), read as decode(q) * scale_inv (cublasLt.h's
 * A_SCALE / B_SCALE). Why, and TE's choices: docs/backprop.md section 12. */
#ifndef MNIST_EPILOGS_FP8_H
#define MNIST_EPILOGS_FP8_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "lt/lt_shape.h"

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__CUDACC__)
#define FP8_HOST_DEVICE __host__ __device__
#else
#define FP8_HOST_DEVICE
#endif

/* 448 or 57344: E4M3's or E5M2's largest finite value. */
static FP8_HOST_DEVICE inline float fp8_max_finite(lt_fp8 format) {
  return format == LT_FP8_E5M2 ? 57344.0f : 448.0f;
}
/* 1 when `code` is a NaN of the format. */
int fp8_is_nan(uint8_t code, lt_fp8 format);
/* The value of `code`, exact: +-inf for E5M2's inf codes, NaN for NaNs. */
float fp8_decode(uint8_t code, lt_fp8 format);

/* Round to nearest, ties to the even code, subnormals exact, saturating: past
 * max + half an ulp (E4M3 464, its tie down to 448; E5M2 61440, its tie up) and
 * +-inf give +-max; NaN gives 0x7F; a zero keeps its sign. Exactly CUDA 13.0's
 * __nv_cvt_float_to_fp8(x, __NV_SATFINITE, fmt) (tests/test_fp8.c). */
uint8_t fp8_encode(float x, lt_fp8 format);

/* encode(x * scale), the product in FP32, as a GPU kernel computes it. */
uint8_t fp8_encode_scaled(float x, float scale, lt_fp8 format);
/* decode(code) * scale_inv, in FP32. */
float fp8_decode_scaled(uint8_t code, float scale_inv, lt_fp8 format);

/* fp8_scale_rule's outcomes. */
enum {
  FP8_SCALE_NEW = 0,  /* the scale of the amax */
  FP8_SCALE_KEPT = 1, /* amax 0: the previous scale kept */
  FP8_SCALE_BAD = -1  /* amax NaN, infinite or negative: previous kept */
};

/* The per-tensor scale from an amax (a tensor's, or its history's largest):
 * the largest 2^k with amax 2^k <= max_finite (a power of two, so the cast is
 * the only rounding: TE's force_pow_2_scales, recipe/recipe_common.cuh),
 * k <= 126 (scale, 1 / scale normal). An amax 0, or not
 * a finite number >= 0, returns `previous` (TE's recipe/delayed_scaling.cu),
 * *outcome saying which. Exact: amax = a 2^ea, max_finite = m 2^em, a, m in
 * [0.5, 1): k = em - ea, one less when a > m. */
static FP8_HOST_DEVICE inline float
fp8_scale_rule(float amax, float max_finite, float previous, int *outcome) {
  if (!(amax > 0.0f) || isinf(amax)) {
    *outcome = amax == 0.0f ? FP8_SCALE_KEPT : FP8_SCALE_BAD;
    return previous;
  }
  int ea, em;
  float a = frexpf(amax, &ea);
  float m = frexpf(max_finite, &em);
  int k = em - ea - (a > m ? 1 : 0);
  *outcome = FP8_SCALE_NEW;
  return ldexpf(1.0f, k > 126 ? 126 : k);
}

/* fp8_scale_rule for `format` into *scale (in: the previous): 0, or -1 for an
 * amax not finite or negative, *scale kept, `why` (may be NULL) naming it. */
int fp8_scale_from_amax(float *scale, float amax, lt_fp8 format, char *why,
                        size_t why_size);

/* The recipe of --precision fp8 (--fp8-*), zeroed the defaults. Which
 * GEMMs set CUBLASLT_MATMUL_DESC_FAST_ACCUM: */
typedef enum fp8_fast_accum {
  FP8_FAST_ACCUM_FORWARD, /* the forward ones (Transformer Engine's) */
  FP8_FAST_ACCUM_ALL,
  FP8_FAST_ACCUM_NONE
} fp8_fast_accum;

typedef struct fp8_recipe {
  int all_e4m3; /* 0 (hybrid): gradients E5M2; 1: E4M3 as the rest */
  int current;  /* 0 (delayed): amax history; 1: its own amax (one more read) */
  fp8_fast_accum fast_accum;
} fp8_recipe;

/* The gradients' format: E5M2 (hybrid) or E4M3. */
lt_fp8 fp8_recipe_gradient(const fp8_recipe *recipe);
/* 1 when the forward (forward = 1) or backward GEMMs use fast accum. */
int fp8_recipe_fast(const fp8_recipe *recipe, int forward);

/* The recipe's fields as flags and checkpoints name them. */
typedef enum fp8_recipe_field {
  FP8_RECIPE_FORMAT,     /* --fp8-format: "hybrid", "e4m3" */
  FP8_RECIPE_SCALING,    /* --fp8-scaling: "delayed", "current" */
  FP8_RECIPE_FAST_ACCUM, /* --fp8-fast-accum: "forward", "all", "none" */
  FP8_RECIPE_FIELDS
} fp8_recipe_field;

/* The field's names, NULL-terminated, in the order of its values. */
const char *const *fp8_recipe_choices(fp8_recipe_field field);
/* The recipe's names, one per field (checkpoints record them). */
void fp8_recipe_names(const fp8_recipe *recipe,
                      const char *names[FP8_RECIPE_FIELDS]);
/* Sets the fields named (NULL or "": kept). Returns 0, or -1 with `why`
 * naming the key and what was found, the recipe unchanged. */
int fp8_recipe_from_names(fp8_recipe *recipe,
                          const char *const names[FP8_RECIPE_FIELDS], char *why,
                          size_t why_size);

#ifdef __cplusplus
}
#endif

#endif
