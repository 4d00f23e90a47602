/* fp8.c: the FP8 casts, their scales and the scale rule (fp8.h). The
 * encoder works on the float's bits in integers: the value is sig * 2^e
 * with an integer significand, and its FP8 quantum 2^q is fixed by the
 * value's binade (or the subnormal range), so rounding is one integer
 * shift with round-to-nearest-even on the bits shifted out. */
#include "layers/fp8.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The shape of one format. */
typedef struct fp8_spec {
  int mantissa_bits; /* M */
  int bias;
  int max_exponent; /* of the largest finite value: 8, 15 */
  uint8_t max_code; /* 0x7E, 0x7B */
} fp8_spec;

static fp8_spec spec_of(fp8_format format) {
  if (format == FP8_FORMAT_E5M2) return (fp8_spec){2, 15, 15, 0x7B};
  return (fp8_spec){3, 7, 8, 0x7E};
}

const char *fp8_format_name(fp8_format format) {
  return format == FP8_FORMAT_E5M2 ? "e5m2" : "e4m3";
}

float fp8_max_finite(fp8_format format) {
  return format == FP8_FORMAT_E5M2 ? 57344.0f : 448.0f;
}

int fp8_is_nan(uint8_t code, fp8_format format) {
  uint8_t magnitude = code & 0x7F;
  if (format == FP8_FORMAT_E5M2) return magnitude > 0x7C;
  return magnitude == 0x7F;
}

float fp8_decode(uint8_t code, fp8_format format) {
  fp8_spec s = spec_of(format);
  int magnitude = code & 0x7F;
  float sign = (code & 0x80) ? -1.0f : 1.0f;
  if (fp8_is_nan(code, format)) return NAN;
  if (format == FP8_FORMAT_E5M2 && magnitude == 0x7C) return sign * INFINITY;
  int field = magnitude >> s.mantissa_bits;
  int mantissa = magnitude & ((1 << s.mantissa_bits) - 1);
  /* Subnormal: m * 2^(1 - bias - M); normal: (2^M + m) * 2^(field - bias
   * - M). Both are exact in float. */
  if (field == 0)
    return sign * ldexpf((float)mantissa, 1 - s.bias - s.mantissa_bits);
  return sign * ldexpf((float)((1 << s.mantissa_bits) + mantissa),
                       field - s.bias - s.mantissa_bits);
}

/* Number of significant bits of v > 0. */
static int bit_length(uint32_t v) {
  int n = 0;
  while (v) {
    n++;
    v >>= 1;
  }
  return n;
}

/* sig * 2^-shift rounded to the nearest integer, ties to even; shift > 0. */
static uint32_t shift_round_even(uint32_t sig, int shift) {
  if (shift > 32) return 0; /* sig < 2^24: below a quarter */
  uint64_t wide = sig;
  uint64_t kept = wide >> shift;
  uint64_t rest = wide & ((1ull << shift) - 1);
  uint64_t half = 1ull << (shift - 1);
  if (rest > half || (rest == half && (kept & 1))) kept++;
  return (uint32_t)kept;
}

/* The magnitude code of a finite |x| = sig * 2^e (sig > 0), before
 * saturation; *beyond is set when the rounded value exceeds max finite. */
static uint8_t encode_magnitude(uint32_t sig, int e, fp8_spec s, int *beyond) {
  int min_exponent = 1 - s.bias;
  int exponent = e + bit_length(sig) - 1; /* floor(log2 |x|) */
  if (exponent > s.max_exponent) {
    *beyond = 1;
    return s.max_code;
  }
  if (exponent < min_exponent)
    exponent = min_exponent; /* subnormal range: one fixed quantum */
  int quantum = exponent - s.mantissa_bits;
  uint32_t n = shift_round_even(sig, quantum - e); /* |x| / 2^quantum */
  /* Codes count quanta: in the subnormal binade the code is n; in binade
   * `exponent` it is ((exponent - min_exponent) << M) + n, n in [2^M,
   * 2^(M+1)], and n = 2^(M+1) (a carry) lands on the next binade's first
   * code. */
  uint32_t code = ((uint32_t)(exponent - min_exponent) << s.mantissa_bits) + n;
  if (code > s.max_code) {
    *beyond = 1;
    return s.max_code;
  }
  return (uint8_t)code;
}

/* fp8_encode; *saturated = 1 when it clamped (fp8_counts' rule). */
static uint8_t encode_flagged(float x, fp8_format format, int *saturated) {
  fp8_spec s = spec_of(format);
  uint32_t bits;
  memcpy(&bits, &x, sizeof bits);
  uint8_t sign = (uint8_t)((bits >> 24) & 0x80);
  uint32_t magnitude = bits & 0x7FFFFFFFu;
  *saturated = 0;
  if (magnitude > 0x7F800000u) return 0x7F; /* NaN, its sign dropped */
  if (magnitude == 0x7F800000u) {
    *saturated = 1;
    return sign | s.max_code;
  }
  if (magnitude == 0) return sign;
  uint32_t field = magnitude >> 23;
  uint32_t sig = magnitude & 0x7FFFFFu;
  int e = -149; /* float subnormal: sig * 2^-149 */
  if (field != 0) {
    sig |= 0x800000u;
    e = (int)field - 150;
  }
  return sign | encode_magnitude(sig, e, s, saturated);
}

uint8_t fp8_encode(float x, fp8_format format) {
  int saturated;
  return encode_flagged(x, format, &saturated);
}

uint8_t fp8_encode_scaled(float x, float scale, fp8_format format) {
  float product = x * scale;
  return fp8_encode(product, format);
}

float fp8_decode_scaled(uint8_t code, float scale_inv, fp8_format format) {
  return fp8_decode(code, format) * scale_inv;
}

void fp8_encode_array(uint8_t *out, fp8_counts *counts, const float *x,
                      size_t count, float scale, fp8_format format) {
  fp8_counts lost = {0, 0, 0};
  for (size_t i = 0; i < count; i++) {
    float product = x[i] * scale;
    int saturated;
    out[i] = encode_flagged(product, format, &saturated);
    lost.saturated += (size_t)saturated;
    lost.nan += (size_t)(isnan(product) != 0);
    /* Underflow is counted against x: a finite non-zero x whose product
     * (or its cast) became zero. */
    lost.flushed +=
        (size_t)(x[i] != 0.0f && isfinite(x[i]) && (out[i] & 0x7F) == 0);
  }
  if (counts) *counts = lost;
}

/* Largest k with amax * 2^k <= max_finite, capped at 126 (fp8.h). Exact:
 * with amax = a * 2^ea and max = m * 2^em, a, m in [0.5, 1), k = em - ea
 * when a <= m, else one less. */
static int scale_exponent(float amax, float max_finite) {
  int ea, em;
  float a = frexpf(amax, &ea);
  float m = frexpf(max_finite, &em);
  int k = em - ea - (a > m ? 1 : 0);
  return k > 126 ? 126 : k;
}

int fp8_scale_from_amax(float *scale, float amax, fp8_format format, char *why,
                        size_t why_size) {
  if (!(amax >= 0.0f) || isinf(amax)) {
    if (why && why_size)
      snprintf(why, why_size,
               "fp8 %s scale: expected a finite amax >= 0, found %g (the "
               "tensor holds inf or NaN); scale left at %g",
               fp8_format_name(format), (double)amax, (double)*scale);
    return -1;
  }
  if (amax == 0.0f) {
    *scale = 1.0f;
    return 0;
  }
  *scale = ldexpf(1.0f, scale_exponent(amax, fp8_max_finite(format)));
  return 0;
}
