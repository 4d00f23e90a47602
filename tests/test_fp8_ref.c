/* test_fp8_ref.c: the FP8 references of the FP8 suites
 * (test_fp8_ref.h). */
#include "tests/test_fp8_ref.h"

#include <math.h>
#include <string.h>

static const format_fields fields[] = {
    {LT_FP8_E4M3, 4, 3, 7, 0, 0x7E, 448.0, -9},
    {LT_FP8_E5M2, 5, 2, 15, 1, 0x7B, 57344.0, -16},
};

uint32_t bits_of(float x) {
  uint32_t b;
  memcpy(&b, &x, sizeof b);
  return b;
}

float float_of(uint32_t b) {
  float x;
  memcpy(&x, &b, sizeof x);
  return x;
}

double power_of_two(int k) {
  double p = 1.0;
  for (; k > 0; k--)
    p *= 2.0;
  for (; k < 0; k++)
    p /= 2.0;
  return p;
}

double reference_decode(uint8_t code, const format_fields *f) {
  int sign = code >> 7;
  int field = (code >> f->mantissa_bits) & ((1 << f->exponent_bits) - 1);
  int mantissa = code & ((1 << f->mantissa_bits) - 1);
  int all_ones = (1 << f->exponent_bits) - 1;
  if (f->has_inf && field == all_ones)
    return mantissa ? NAN : (sign ? -INFINITY : INFINITY);
  if (!f->has_inf && field == all_ones &&
      mantissa == (1 << f->mantissa_bits) - 1)
    return NAN;
  double fraction = (double)mantissa / (double)(1 << f->mantissa_bits);
  double value = field == 0 ? fraction * power_of_two(1 - f->bias)
                            : (1.0 + fraction) * power_of_two(field - f->bias);
  return sign ? -value : value;
}

uint8_t reference_encode(float x, const format_fields *f) {
  if (isnan(x)) return 0x7F;
  uint8_t sign = signbit(x) ? 0x80 : 0x00;
  double a = fabs((double)x);
  double top_ulp = reference_decode(f->max_code, f) -
                   reference_decode((uint8_t)(f->max_code - 1), f);
  int best = 0;
  double best_distance = INFINITY;
  for (int c = 0; c <= f->max_code + 1; c++) {
    double v = c <= f->max_code ? reference_decode((uint8_t)c, f)
                                : f->max_value + top_ulp;
    double d = fabs(a - v);
    if (d < best_distance || (d == best_distance && c % 2 == 0)) {
      best = c;
      best_distance = d;
    }
  }
  if (best > f->max_code || a > f->max_value + top_ulp) best = f->max_code;
  return (uint8_t)(sign | best);
}

int same_code(uint8_t a, uint8_t b, const format_fields *f) {
  return a == b || (fp8_is_nan(a, f->format) && fp8_is_nan(b, f->format));
}

const format_fields *fp8_ref_fields(int index) {
  return &fields[index];
}

void test_fp8_encode_array(uint8_t *out, test_fp8_counts *counts,
                           const float *x, size_t count, float scale,
                           lt_fp8 format) {
  test_fp8_counts lost = {0, 0, 0};
  double boundary = format == LT_FP8_E5M2 ? 61440.0 : 464.0;
  for (size_t i = 0; i < count; i++) {
    float product = x[i] * scale;
    out[i] = fp8_encode(product, format);
    double p = fabs((double)product);
    lost.saturated += format == LT_FP8_E5M2 ? p >= boundary : p > boundary;
    lost.nan += isnan(product) != 0;
    lost.flushed += x[i] != 0.0f && isfinite(x[i]) && (out[i] & 0x7F) == 0;
  }
  if (counts) *counts = lost;
}
