/* test_fp8_ref.h: the FP8 formats' fields written out from the OCP
 * definitions (not taken from layers/fp8.c), and two references the FP8
 * suites hold layers/fp8.c to: a decoder from the bit fields and a
 * nearest-value encoder (ties to even, saturation) by search. */
#ifndef MNIST_EPILOGS_TEST_FP8_REF_H
#define MNIST_EPILOGS_TEST_FP8_REF_H

#include <stddef.h>
#include <stdint.h>

#include "layers/fp8.h"

typedef struct format_fields {
  lt_fp8 format;
  int exponent_bits, mantissa_bits, bias;
  int has_inf;      /* E5M2: field all ones, mantissa 0 */
  uint8_t max_code; /* the largest finite magnitude code */
  double max_value; /* its value */
  int min_sub_log2; /* the smallest subnormal is 2^min_sub_log2 */
} format_fields;

/* fields[0] E4M3, fields[1] E5M2. */
const format_fields *fp8_ref_fields(int index);

uint32_t bits_of(float x);
float float_of(uint32_t bits);
double power_of_two(int k);

/* The value the bits of `code` mean: sign, exponent field, mantissa. */
double reference_decode(uint8_t code, const format_fields *f);

/* The nearest of the finite codes 0..max_code to |x|, ties to the even
 * code, found by search; one more virtual code past max_code (max + one
 * ulp) stands for "rounds out of range", which saturates. */
uint8_t reference_encode(float x, const format_fields *f);

/* What a cast lost, per element of its input x, as fp8_meta counts it
 * (layers/fp8_cast.h), decided here from x alone: saturated: x * scale
 * beyond the rounding boundary (E4M3 above 464, E5M2 61440 and above) or
 * infinite; flushed: x finite, non-zero and its code +-0; nan: x * scale
 * NaN. */
typedef struct test_fp8_counts {
  size_t saturated;
  size_t flushed;
  size_t nan;
} test_fp8_counts;

/* out[i] = fp8_encode_scaled(x[i], scale, format) for i < count; *counts
 * = what those casts lost (=, not +=). counts may be NULL. */
void test_fp8_encode_array(uint8_t *out, test_fp8_counts *counts,
                           const float *x, size_t count, float scale,
                           lt_fp8 format);

/* a and b are the same code, or both NaN codes. */
int same_code(uint8_t a, uint8_t b, const format_fields *f);

#endif
