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
 * 0; amax 0 gives scale 1 there and here.
 */
#ifndef MNIST_EPILOGS_FP8_H
#define MNIST_EPILOGS_FP8_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fp8_format {
  FP8_FORMAT_E4M3, /* bias 7, 3 mantissa bits, max 448, no inf */
  FP8_FORMAT_E5M2, /* bias 15, 2 mantissa bits, max 57344, inf and NaN */
  FP8_FORMAT_COUNT
} fp8_format;

/* "e4m3", "e5m2". */
const char *fp8_format_name(fp8_format format);
/* 448 or 57344. */
float fp8_max_finite(fp8_format format);
/* 1 when `code` is a NaN of the format (E4M3: 0x7F, 0xFF; E5M2: exponent
 * field 11111 with a mantissa). */
int fp8_is_nan(uint8_t code, fp8_format format);

/* The value of `code`, exact: +-inf for E5M2's inf codes, NaN for NaNs. */
float fp8_decode(uint8_t code, fp8_format format);

/* Round to nearest even with saturation, as the header comment says. */
uint8_t fp8_encode(float x, fp8_format format);

/* encode(x * scale): the product rounded to FP32 first, as a GPU kernel
 * computes it (exact when scale is a power of two and the product is a
 * normal float). */
uint8_t fp8_encode_scaled(float x, float scale, fp8_format format);
/* decode(code) * scale_inv, in FP32 (scale_inv = 1 / scale, the value
 * cuBLASLt's A_SCALE / B_SCALE pointers hold). */
float fp8_decode_scaled(uint8_t code, float scale_inv, fp8_format format);

/* What a cast lost, counted per element of its input x (never silent):
 * saturated: x * scale was +-inf or rounded beyond max finite, and was
 *            clamped to +-max finite (values that round down to max
 *            finite by the even rule are ordinary rounding, not counted);
 * flushed:   x was finite and non-zero and its code is +-0 (underflow);
 * nan:       x * scale was NaN (x NaN, or inf * 0; its code is 0x7F). */
typedef struct fp8_counts {
  size_t saturated;
  size_t flushed;
  size_t nan;
} fp8_counts;

/* out[i] = fp8_encode_scaled(x[i], scale, format) for i < count; *counts
 * = what those casts lost (=, not +=). counts may be NULL. */
void fp8_encode_array(uint8_t *out, fp8_counts *counts, const float *x,
                      size_t count, float scale, fp8_format format);

/* The per-tensor scale from a tensor's amax (largest |x|): the largest
 * power of two 2^k with amax * 2^k <= max finite, so nothing saturates,
 * with k capped at 126 so that scale and 1 / scale are normal floats (an
 * amax below max_finite * 2^-126 then leaves range unused). amax 0 (an
 * all-zero tensor: any scale encodes it exactly) gives 1. Returns 0, or -1
 * for an amax that is NaN, infinite or negative (the tensor itself holds
 * inf or NaN): *scale is then left as it was, for the caller to keep its
 * previous scale and report, and `why` names the amax found. */
int fp8_scale_from_amax(float *scale, float amax, fp8_format format, char *why,
                        size_t why_size);

#ifdef __cplusplus
}
#endif

#endif
