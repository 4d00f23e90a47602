/* fp8.h: the two OCP FP8 formats, their casts with per-tensor scales and
 * saturation, and the scale rule: the plain-C reference that the oracle and
 * the GPU's FP8 kernels are held to bit for bit (issue 22, item 5). Plain
 * C, no CUDA headers, so CPU-only code includes it.
 *
 * The formats (OCP 8-bit Floating Point Specification (OFP8) 1.0, the
 * formats of Hopper's tensor cores and of cuda_fp8.h's __NV_E4M3 and
 * __NV_E5M2): one sign bit, then the exponent field, then the mantissa.
 *   E4M3: 4 exponent bits, bias 7, 3 mantissa bits. No infinities; the
 *         exponent field 1111 holds numbers too, except S.1111.111, the
 *         only NaN (0x7F, 0xFF). Max finite 0x7E = 1.75 * 2^8 = 448; min
 *         normal 2^-6; subnormals m * 2^-9, the smallest 2^-9.
 *   E5M2: 5 exponent bits, bias 15, 2 mantissa bits, IEEE-like: field
 *         11111 is inf (mantissa 0) or NaN. Max finite 0x7B = 1.75 * 2^15
 *         = 57344; min normal 2^-14; subnormals m * 2^-16.
 * Decoding is exact: every FP8 value is a float.
 *
 * Encoding (fp8_encode) rounds to nearest, ties to even (to the even
 * code), with subnormals exact, and saturates: a value whose rounding
 * would leave the finite range, and +-inf, becomes +-max finite (the
 * rounding boundary is max + half an ulp: E4M3 464, whose tie goes down to
 * 448 by the even rule; E5M2 61440, whose tie goes up and so saturates).
 * NaN becomes 0x7F in both formats (E4M3's NaN; a quiet NaN in E5M2): the
 * sign of a NaN is dropped. Values that round to zero keep their sign (-0
 * is 0x80). This is exactly __nv_cvt_float_to_fp8(x, __NV_SATFINITE, fmt)
 * of CUDA 13.0's cuda_fp8.hpp (its host code: a NaN input is first made
 * the canonical 0x7FFFFFFF, an input beyond the boundary, inf included,
 * gives max finite); tests/test_fp8.c compares the two over every float
 * of the FP8 range. On sm_89 and newer the same function's device code is
 * one cvt.rn.satfinite.{e4m3x2,e5m2x2}.f32 instruction instead: that the
 * GPU's casts agree with this file is for the GPU tests to show.
 *
 * Scales, as Transformer Engine and cuBLASLt use them: a tensor is stored
 * as q = encode(x * scale) (the product in FP32, then the cast), and read
 * as x = decode(q) * scale_inv, scale_inv = 1 / scale. cuBLASLt's
 * CUBLASLT_MATMUL_DESC_A_SCALE_POINTER / B_SCALE_POINTER take scale_inv:
 * cublasLt.h (CUDA 13.0) calls it "the scale factor value that converts
 * data in matrix A to the compute data type range", i.e. it multiplies the
 * decoded operand. The per-tensor scale comes from the tensor's amax (the
 * largest |x|): scale = max_finite / amax rounded down to a power of two
 * (fp8_scale_from_amax). A power of two makes x * scale and decode(q) *
 * scale_inv exact, so the cast is the only rounding, and scale_inv is
 * exactly 1 / scale; it costs at most a factor 2 of range. It is what
 * Transformer Engine's compute_scale_from_amax does with
 * force_pow_2_scales (transformer_engine/common/recipe/recipe_common.cuh:
 * it keeps only the sign and exponent bits of max_fp8 / amax), with margin
 * 0. An amax of 0 (an all-zero tensor, or an empty delayed-scaling
 * history) or one that is not finite keeps the previous scale, as
 * Transformer Engine's delayed scaling does
 * (transformer_engine/common/recipe/delayed_scaling.cu: "scale =
 * p.param.scale[bid]" unless amax is finite and positive): fp8_scale_rule,
 * the one rule the host and the device run (this header, compiled by both).
 *
 * The recipe of --precision fp8 (fp8_recipe) is the layer's too: the
 * formats, the scaling and fast accumulation (layers/mlp_fp8.h).
 */
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
/* 1 when `code` is a NaN of the format (E4M3: 0x7F, 0xFF; E5M2: exponent
 * field 11111 with a mantissa). */
int fp8_is_nan(uint8_t code, lt_fp8 format);

/* The value of `code`, exact: +-inf for E5M2's inf codes, NaN for NaNs. */
float fp8_decode(uint8_t code, lt_fp8 format);

/* Round to nearest even with saturation, as the header comment says. */
uint8_t fp8_encode(float x, lt_fp8 format);

/* encode(x * scale): the product rounded to FP32 first, as a GPU kernel
 * computes it (exact when scale is a power of two and the product is a
 * normal float). */
uint8_t fp8_encode_scaled(float x, float scale, lt_fp8 format);
/* decode(code) * scale_inv, in FP32 (scale_inv = 1 / scale, the value
 * cuBLASLt's A_SCALE / B_SCALE pointers hold). */
float fp8_decode_scaled(uint8_t code, float scale_inv, lt_fp8 format);

/* fp8_scale_rule's outcomes. */
enum {
  FP8_SCALE_NEW = 0,  /* the scale of the amax */
  FP8_SCALE_KEPT = 1, /* amax 0: the previous scale kept */
  FP8_SCALE_BAD = -1  /* amax NaN, infinite or negative: previous kept */
};

/* The per-tensor scale from an amax (largest |x|, or an amax history's
 * largest): the largest power of two 2^k with amax * 2^k <= max_finite,
 * k capped at 126 so that scale and 1 / scale are normal floats. An amax
 * of 0 or one that is not a finite number >= 0 returns `previous`.
 * *outcome = FP8_SCALE_NEW, _KEPT or _BAD. Exact: with amax = a 2^ea and
 * max_finite = m 2^em, a, m in [0.5, 1), k = em - ea, one less when
 * a > m. */
static FP8_HOST_DEVICE inline float
fp8_scale_rule(float amax, float max_finite, float previous, int *outcome) {
  if (!(amax >= 0.0f) || isinf(amax)) {
    *outcome = FP8_SCALE_BAD;
    return previous;
  }
  if (amax == 0.0f) {
    *outcome = FP8_SCALE_KEPT;
    return previous;
  }
  int ea, em;
  float a = frexpf(amax, &ea);
  float m = frexpf(max_finite, &em);
  int k = em - ea - (a > m ? 1 : 0);
  *outcome = FP8_SCALE_NEW;
  return ldexpf(1.0f, k > 126 ? 126 : k);
}

/* fp8_scale_rule for `format` into *scale (in: the previous scale).
 * Returns 0 (a new scale, or amax 0: *scale kept), or -1 for an amax that
 * is NaN, infinite or negative (the tensor holds inf or NaN): *scale is
 * kept, and `why` (may be NULL) names the amax found. */
int fp8_scale_from_amax(float *scale, float amax, lt_fp8 format, char *why,
                        size_t why_size);

/* The recipe of --precision fp8 (layers/mlp_fp8.h; the flags: --fp8-*);
 * zeroed, the defaults. Which GEMMs set CUBLASLT_MATMUL_DESC_FAST_ACCUM: */
typedef enum fp8_fast_accum {
  FP8_FAST_ACCUM_FORWARD, /* the forward ones (Transformer Engine's) */
  FP8_FAST_ACCUM_ALL,
  FP8_FAST_ACCUM_NONE
} fp8_fast_accum;

typedef struct fp8_recipe {
  int all_e4m3; /* 0 (hybrid): gradients E5M2; 1: E4M3 as the rest */
  int current;  /* 0 (delayed): scales from the amax history; 1 (current):
                   from the tensor's own amax, one more read of it */
  fp8_fast_accum fast_accum;
} fp8_recipe;

/* The gradients' format: E5M2 (hybrid) or E4M3. */
lt_fp8 fp8_recipe_gradient(const fp8_recipe *recipe);
/* 1 when the forward GEMMs (forward = 1) or the backward ones (0) use
 * fast accumulation. */
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
/* Sets the fields whose name is given (NULL or "": kept) from such names.
 * Returns 0, or -1 with `why` naming the key and what was found (and the
 * recipe unchanged). */
int fp8_recipe_from_names(fp8_recipe *recipe,
                          const char *const names[FP8_RECIPE_FIELDS], char *why,
                          size_t why_size);

#ifdef __cplusplus
}
#endif

#endif
