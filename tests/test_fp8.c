/* test_fp8.c: the FP8 casts of layers/fp8.h bit for bit. Every code of
 * both formats against a decoder written here from the bit fields; the
 * encoder against NVIDIA's own __nv_cvt_float_to_fp8(x, __NV_SATFINITE,
 * fmt) (cuda_fp8.h's host code, tests/fp8_nvidia.cpp) over every float
 * whose binade the format can reach, both signs, and sampled mantissas in
 * every other binade; against a nearest-value search over the decoded
 * codes (ties to even, saturation) on every tie, the boundaries and a
 * random sample; the scaled round trips, the saturation / underflow / NaN
 * counts and the power-of-two scale rule. Plain C: runs anywhere. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "layers/fp8.h"
#include "tests/fp8_nvidia.h"
#include "tests/test_util.h"

static uint64_t seed;

/* Each format's fields, written out here rather than taken from fp8.c. */
typedef struct format_fields {
  fp8_format format;
  int exponent_bits, mantissa_bits, bias;
  int has_inf;      /* E5M2: field all ones, mantissa 0 */
  uint8_t max_code; /* the largest finite magnitude code */
  double max_value; /* its value */
  int min_sub_log2; /* the smallest subnormal is 2^min_sub_log2 */
} format_fields;

static const format_fields fields[] = {
    {FP8_FORMAT_E4M3, 4, 3, 7, 0, 0x7E, 448.0, -9},
    {FP8_FORMAT_E5M2, 5, 2, 15, 1, 0x7B, 57344.0, -16},
};

static uint32_t bits_of(float x) {
  uint32_t b;
  memcpy(&b, &x, sizeof b);
  return b;
}

static float float_of(uint32_t b) {
  float x;
  memcpy(&x, &b, sizeof x);
  return x;
}

static double power_of_two(int k) {
  double p = 1.0;
  for (; k > 0; k--)
    p *= 2.0;
  for (; k < 0; k++)
    p /= 2.0;
  return p;
}

/* The value the bits of `code` mean: sign, exponent field, mantissa. */
static double reference_decode(uint8_t code, const format_fields *f) {
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

/* The nearest of the finite codes 0..max_code to |x|, ties to the even
 * code, found by search; one more virtual code past max_code (max + one
 * ulp) stands for "rounds out of range", which saturates. */
static uint8_t reference_encode(float x, const format_fields *f) {
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

static int same_code(uint8_t a, uint8_t b, const format_fields *f) {
  return a == b || (fp8_is_nan(a, f->format) && fp8_is_nan(b, f->format));
}

/* (a) Every code decodes to what its bits mean (NVIDIA's decoder agrees)
 * and re-encodes to itself; NaNs to a NaN; E5M2's inf to max finite. */
START_TEST(every_code_decodes_and_reencodes) {
  const format_fields *f = &fields[_i];
  int e5m2 = f->format == FP8_FORMAT_E5M2;
  int finite = 0, nans = 0, infs = 0;
  double largest = 0.0;
  for (int c = 0; c < 256; c++) {
    uint8_t code = (uint8_t)c;
    double want = reference_decode(code, f);
    float got = fp8_decode(code, f->format);
    float nvidia = fp8_nvidia_decode(code, e5m2);
    if (isnan(want)) {
      nans++;
      ck_assert_msg(isnan(got) && isnan(nvidia) && fp8_is_nan(code, f->format),
                    "%s code 0x%02X: expected NaN, decoded %g (NVIDIA %g)",
                    fp8_format_name(f->format), c, (double)got, (double)nvidia);
      ck_assert_msg(fp8_is_nan(fp8_encode(got, f->format), f->format),
                    "%s NaN did not encode to a NaN code",
                    fp8_format_name(f->format));
      continue;
    }
    ck_assert_msg(!fp8_is_nan(code, f->format), "%s code 0x%02X is no NaN",
                  fp8_format_name(f->format), c);
    ck_assert_msg((double)got == want && !signbit(got) == !signbit(want) &&
                      (double)nvidia == want,
                  "%s code 0x%02X: expected %.10g, decoded %.10g (NVIDIA "
                  "%.10g)",
                  fp8_format_name(f->format), c, want, (double)got,
                  (double)nvidia);
    uint8_t again = fp8_encode(got, f->format);
    if (isinf(want)) {
      infs++;
      ck_assert_int_eq(again, (code & 0x80) | f->max_code);
      continue;
    }
    finite++;
    largest = fmax(largest, want);
    ck_assert_msg(again == code, "%s code 0x%02X (%g) re-encoded to 0x%02X",
                  fp8_format_name(f->format), c, want, again);
  }
  ck_assert_int_eq(finite, e5m2 ? 248 : 254);
  ck_assert_int_eq(nans, e5m2 ? 6 : 2);
  ck_assert_int_eq(infs, e5m2 ? 2 : 0);
  ck_assert(largest == f->max_value &&
            (double)fp8_max_finite(f->format) == f->max_value &&
            (double)fp8_decode(f->max_code, f->format) == f->max_value);
  ck_assert_double_eq(fp8_decode(1, f->format), power_of_two(f->min_sub_log2));
}
END_TEST

/* Compares fp8_encode with NVIDIA's on x; prints the first few
 * differences. Returns 1 on a difference. */
static int differs_from_nvidia(float x, const format_fields *f, long *printed) {
  uint8_t mine = fp8_encode(x, f->format);
  uint8_t nvidia = fp8_nvidia_encode(x, f->format == FP8_FORMAT_E5M2);
  if (mine == nvidia) return 0;
  if ((*printed)++ < 10)
    printf("%s: x = %a (0x%08X): fp8_encode 0x%02X, NVIDIA 0x%02X\n",
           fp8_format_name(f->format), (double)x, bits_of(x), mine, nvidia);
  return 1;
}

/* (b) Against NVIDIA's host conversion: every float in the binades from a
 * quarter of the smallest subnormal up to four times the largest finite
 * value (below them everything is 0, above everything saturates), both
 * signs; in every other binade (float subnormals, inf and NaN included)
 * 4096 mantissas: every top-12-bit pattern with low bits 0, 1, or all
 * ones, in turn. */
START_TEST(encode_matches_nvidia) {
  const format_fields *f = &fields[_i];
  int max_log2 = f->format == FP8_FORMAT_E5M2 ? 15 : 8;
  uint32_t low_field = (uint32_t)(127 + f->min_sub_log2 - 2);
  uint32_t high_field = (uint32_t)(127 + max_log2 + 2);
  long differ = 0, printed = 0, compared = 0;
  for (uint32_t sign = 0; sign < 2; sign++)
    for (uint32_t field = 0; field < 256; field++) {
      uint32_t head = (sign << 31) | (field << 23);
      if (field >= low_field && field <= high_field) {
        for (uint32_t m = 0; m < (1u << 23); m++)
          differ += differs_from_nvidia(float_of(head | m), f, &printed);
        compared += 1l << 23;
        continue;
      }
      static const uint32_t low_bits[] = {0, 1, 0x7FF};
      for (uint32_t top = 0; top < 4096; top++) {
        uint32_t m = (top << 11) | low_bits[top % 3];
        differ += differs_from_nvidia(float_of(head | m), f, &printed);
      }
      compared += 4096;
    }
  printf("%s: %ld floats compared with __nv_cvt_float_to_fp8, %ld differ\n",
         fp8_format_name(f->format), compared, differ);
  ck_assert_msg(differ == 0, "%s: %ld of %ld floats encode unlike NVIDIA's",
                fp8_format_name(f->format), differ, compared);
}
END_TEST

/* Checks x against both references and, when `want` >= 0, the code
 * written in the test. */
static void check_encode(float x, int want, const format_fields *f) {
  uint8_t mine = fp8_encode(x, f->format);
  uint8_t nvidia = fp8_nvidia_encode(x, f->format == FP8_FORMAT_E5M2);
  uint8_t nearest = reference_encode(x, f);
  ck_assert_msg(same_code(mine, nearest, f) && mine == nvidia &&
                    (want < 0 || mine == want),
                "%s: x = %a: fp8_encode 0x%02X, nearest 0x%02X, NVIDIA "
                "0x%02X, expected %s0x%02X",
                fp8_format_name(f->format), (double)x, mine, nearest, nvidia,
                want < 0 ? "(any) " : "", want < 0 ? 0 : want);
}

/* Every midpoint between adjacent non-negative finite values (and the one
 * past max finite) goes to the even code, its float neighbours to the
 * nearer code; both signs. */
START_TEST(ties_go_to_even) {
  const format_fields *f = &fields[_i];
  double top_ulp = reference_decode(f->max_code, f) -
                   reference_decode((uint8_t)(f->max_code - 1), f);
  for (int c = 0; c <= f->max_code; c++) {
    double low = reference_decode((uint8_t)c, f);
    double high = c < f->max_code ? reference_decode((uint8_t)(c + 1), f)
                                  : f->max_value + top_ulp;
    float mid = (float)((low + high) / 2);
    ck_assert((double)mid == (low + high) / 2); /* exact in float */
    int even = c % 2 == 0 ? c : c + 1;
    if (even > f->max_code)
      even = f->max_code; /* the tie past max rounds up: saturates */
    int up = c + 1 > f->max_code ? f->max_code : c + 1;
    for (int s = 0; s < 2; s++) {
      int sign = s ? 0x80 : 0;
      float m = s ? -mid : mid;
      check_encode(m, sign | even, f);
      check_encode(nextafterf(m, 0.0f), sign | c, f);
      check_encode(nextafterf(m, s ? -INFINITY : INFINITY), sign | up, f);
    }
  }
}
END_TEST

/* The special values and the boundaries, with their codes written out. */
START_TEST(specials_and_boundaries) {
  const format_fields *f = &fields[_i];
  int e5m2 = f->format == FP8_FORMAT_E5M2;
  float boundary = e5m2 ? 61440.0f : 464.0f; /* max + half an ulp */
  float sub = (float)power_of_two(f->min_sub_log2);
  const struct {
    float x;
    int e4m3, e5m2;
  } rows[] = {
      {0.0f, 0x00, 0x00},
      {-0.0f, 0x80, 0x80},
      {1.0f, 0x38, 0x3C},
      {-2.0f, 0xC0, 0xC0},
      {448.0f, 0x7E, 0x5F},
      {57344.0f, 0x7E, 0x7B},
      {464.0f, 0x7E, 0x5F},   /* E4M3: the tie at the boundary, to 448 */
      {61440.0f, 0x7E, 0x7B}, /* E5M2: the tie rounds up, saturates */
      {65536.0f, 0x7E, 0x7B},
      {-1e9f, 0xFE, 0xFB},
      {FLT_MAX, 0x7E, 0x7B},
      {INFINITY, 0x7E, 0x7B}, /* saturation: inf to max finite */
      {-INFINITY, 0xFE, 0xFB},
      {NAN, 0x7F, 0x7F},
      {-NAN, 0x7F, 0x7F},     /* the sign of a NaN is dropped */
      {0x1p-6f, 0x08, 0x24},  /* E4M3's smallest normal */
      {0x1p-14f, 0x00, 0x04}, /* E5M2's smallest normal */
      {0x1p-9f, 0x01, 0x18},
      {0x1.8p-9f, 0x02, 0x1A}, /* E4M3: tie between 1 and 2 sub-ulps */
      {FLT_TRUE_MIN, 0x00, 0x00},
      {-FLT_TRUE_MIN, 0x80, 0x80},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
    check_encode(rows[i].x, e5m2 ? rows[i].e5m2 : rows[i].e4m3, f);
  check_encode(float_of(0x7F800001u), 0x7F, f); /* signalling NaN */
  check_encode(float_of(0xFFFFFFFFu), 0x7F, f);
  check_encode(boundary, e5m2 ? 0x7B : 0x7E, f);
  check_encode(nextafterf(boundary, 0.0f), f->max_code, f);
  check_encode(nextafterf(boundary, INFINITY), f->max_code, f);
  check_encode(-nextafterf(boundary, INFINITY), 0x80 | f->max_code, f);
  check_encode(sub, 0x01, f);
  check_encode(sub / 2, 0x00, f); /* the tie with zero goes to zero */
  check_encode(-sub / 2, 0x80, f);
  check_encode(nextafterf(sub / 2, 1.0f), 0x01, f);
  check_encode(nextafterf(sub / 2, 0.0f), 0x00, f);
}
END_TEST

/* A random sample against both references: random bit patterns (most far
 * outside the range) and log-uniform magnitudes across it. */
START_TEST(random_floats_match_both_references) {
  const format_fields *f = &fields[_i];
  test_rng rng;
  test_rng_init(&rng, seed + (uint64_t)_i);
  for (int i = 0; i < 200000; i++) {
    float x = float_of((uint32_t)test_rng_next(&rng));
    check_encode(x, -1, f);
    double log2_x =
        test_rng_uniform(&rng, f->min_sub_log2 - 3, log2(f->max_value) + 2);
    float y = (float)exp2(log2_x);
    check_encode(i % 2 ? -y : y, -1, f);
  }
}
END_TEST

/* (c) Scaled round trips. With a power-of-two scale every finite code
 * comes back exactly; a tensor scaled by its amax's scale loses at most
 * the format's unit roundoff (2^-4 E4M3, 2^-3 E5M2) relative in the
 * normal range, half the smallest subnormal (over the scale) below it,
 * and nothing saturates. */
START_TEST(scaled_round_trips) {
  const format_fields *f = &fields[_i];
  static const int exponents[] = {-20, -3, 0, 1, 5, 20};
  for (size_t e = 0; e < sizeof exponents / sizeof exponents[0]; e++) {
    float scale = ldexpf(1.0f, exponents[e]);
    for (int c = 0; c < 256; c++) {
      uint8_t code = (uint8_t)c;
      double value = reference_decode(code, f);
      if (!isfinite(value)) continue;
      float x = fp8_decode_scaled(code, 1.0f / scale, f->format);
      ck_assert(x == ldexpf((float)value, -exponents[e]));
      ck_assert_int_eq(fp8_encode_scaled(x, scale, f->format), code);
    }
  }
  test_rng rng;
  test_rng_init(&rng, seed + 10 + (uint64_t)_i);
  enum { N = 4096 };
  static float x[N];
  static uint8_t q[N];
  double unit_roundoff = power_of_two(-(f->mantissa_bits + 1));
  double min_normal = power_of_two(1 - f->bias);
  for (int round = 0; round < 50; round++) {
    double amax_log2 = test_rng_uniform(&rng, -30, 30);
    float amax = 0.0f;
    for (int i = 0; i < N; i++) {
      float m = (float)exp2(amax_log2 - test_rng_uniform(&rng, 0, 30));
      x[i] = test_rng_next(&rng) % 2 ? -m : m;
      amax = fmaxf(amax, m);
    }
    float scale = 0.0f;
    char why[200];
    ck_assert_int_eq(
        fp8_scale_from_amax(&scale, amax, f->format, why, sizeof why), 0);
    fp8_counts counts;
    fp8_encode_array(q, &counts, x, N, scale, f->format);
    ck_assert_msg(counts.saturated == 0 && counts.nan == 0,
                  "%s amax %g scale %g: %zu saturated, %zu NaN",
                  fp8_format_name(f->format), (double)amax, (double)scale,
                  counts.saturated, counts.nan);
    size_t flushed = 0;
    for (int i = 0; i < N; i++) {
      float y = fp8_decode_scaled(q[i], 1.0f / scale, f->format);
      double err = fabs((double)y - (double)x[i]);
      double scaled = fabs((double)x[i] * (double)scale);
      double bound = scaled >= min_normal
                         ? unit_roundoff * fabs((double)x[i])
                         : power_of_two(f->min_sub_log2 - 1) / scale;
      ck_assert_msg(err <= bound,
                    "%s: x = %a scale %g: decoded %a, error %g > %g",
                    fp8_format_name(f->format), (double)x[i], (double)scale,
                    (double)y, err, bound);
      /* The product is exact, so the scaled cast is NVIDIA's cast of it. */
      ck_assert_int_eq(
          q[i], fp8_nvidia_encode(x[i] * scale, f->format == FP8_FORMAT_E5M2));
      flushed += (q[i] & 0x7F) == 0;
    }
    ck_assert_uint_eq(counts.flushed, flushed);
  }
}
END_TEST

/* (d) The counts: saturated, flushed to zero and NaN, each element by the
 * rule of fp8.h, with the codes. */
START_TEST(counts_saturation_underflow_nan) {
  const format_fields *f = &fields[FP8_FORMAT_E4M3];
  const struct {
    float x;
    uint8_t code;
  } rows[] = {
      {0.0f, 0x00}, /* zero: not an underflow */
      {-0.0f, 0x80},
      {1.0f, 0x38},
      {448.0f, 0x7E},
      {464.0f, 0x7E},        /* rounds to max: not saturated */
      {0x1.d00002p8f, 0x7E}, /* just past 464: saturated */
      {1e30f, 0x7E},         /* saturated */
      {-INFINITY, 0xFE},     /* saturated */
      {NAN, 0x7F},           /* NaN */
      {0x1p-10f, 0x00},      /* half the smallest subnormal: flushed */
      {0x1.000002p-10f, 0x01},
      {-1e-30f, 0x80},      /* flushed, sign kept */
      {FLT_TRUE_MIN, 0x00}, /* flushed */
  };
  enum { COUNT = sizeof rows / sizeof rows[0] };
  float x[COUNT];
  uint8_t q[COUNT];
  for (int i = 0; i < COUNT; i++)
    x[i] = rows[i].x;
  fp8_counts counts = {99, 99, 99};
  fp8_encode_array(q, &counts, x, COUNT, 1.0f, f->format);
  for (int i = 0; i < COUNT; i++)
    ck_assert_msg(q[i] == rows[i].code,
                  "row %d: x = %a: code 0x%02X, "
                  "expected 0x%02X",
                  i, (double)x[i], q[i], rows[i].code);
  ck_assert_uint_eq(counts.saturated, 3);
  ck_assert_uint_eq(counts.flushed, 3);
  ck_assert_uint_eq(counts.nan, 1);
  /* The scale moves values in and out of range: 5e-4 flushes at scale 1
   * (below 2^-10), not at 2^10; 1 saturates at 2^9 (512), not at 2^8. */
  float small = 5e-4f, one = 1.0f;
  uint8_t code;
  fp8_encode_array(&code, &counts, &small, 1, 1.0f, f->format);
  ck_assert(code == 0x00 && counts.flushed == 1);
  fp8_encode_array(&code, &counts, &small, 1, 1024.0f, f->format);
  ck_assert(code == fp8_encode(small * 1024.0f, f->format) &&
            counts.flushed == 0);
  fp8_encode_array(&code, &counts, &one, 1, 512.0f, f->format);
  ck_assert(code == 0x7E && counts.saturated == 1);
  fp8_encode_array(&code, &counts, &one, 1, 256.0f, f->format);
  ck_assert(code == 0x78 && counts.saturated == 0);
  /* A finite x whose product overflows FP32 saturates; inf * 0 is NaN. */
  float big = 1e30f, inf = INFINITY;
  fp8_encode_array(&code, &counts, &big, 1, 1e30f, f->format);
  ck_assert(code == 0x7E && counts.saturated == 1 && counts.nan == 0);
  fp8_encode_array(&code, &counts, &inf, 1, 0.0f, f->format);
  ck_assert(code == 0x7F && counts.nan == 1 && counts.saturated == 0);
  fp8_encode_array(&code, NULL, &one, 1, 1.0f, f->format); /* no counts */
  ck_assert_int_eq(code, 0x38);
  /* E5M2: inf saturates to 57344, counted. */
  fp8_encode_array(&code, &counts, &inf, 1, 1.0f, FP8_FORMAT_E5M2);
  ck_assert(code == 0x7B && counts.saturated == 1);
}
END_TEST

/* (e) The scale: the largest power of two with amax * scale <= max
 * finite; 1 for amax 0; NaN, inf and negative amax refused, the scale
 * left as it was. */
START_TEST(scale_rule) {
  const struct {
    fp8_format format;
    float amax, scale;
  } rows[] = {
      {FP8_FORMAT_E4M3, 448.0f, 1.0f},
      {FP8_FORMAT_E4M3, 447.0f, 1.0f},
      {FP8_FORMAT_E4M3, 0x1.c00002p8f, 0.5f}, /* just above 448 */
      {FP8_FORMAT_E4M3, 224.0f, 2.0f},
      {FP8_FORMAT_E4M3, 1.0f, 256.0f},     /* 448 / 1 -> 256 */
      {FP8_FORMAT_E4M3, 1e-3f, 262144.0f}, /* 448000 -> 2^18 */
      {FP8_FORMAT_E4M3, FLT_MAX, 0x1p-120f},
      {FP8_FORMAT_E4M3, FLT_MIN, 0x1p126f}, /* capped at 2^126 */
      {FP8_FORMAT_E4M3, FLT_TRUE_MIN, 0x1p126f},
      {FP8_FORMAT_E4M3, 0.0f, 1.0f},
      {FP8_FORMAT_E5M2, 57344.0f, 1.0f},
      {FP8_FORMAT_E5M2, 1.0f, 32768.0f},
      {FP8_FORMAT_E5M2, 0.0f, 1.0f},
  };
  char why[200];
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    float scale = -1.0f;
    ck_assert_int_eq(fp8_scale_from_amax(&scale, rows[i].amax, rows[i].format,
                                         why, sizeof why),
                     0);
    ck_assert_msg(scale == rows[i].scale, "%s amax %a: scale %a, expected %a",
                  fp8_format_name(rows[i].format), (double)rows[i].amax,
                  (double)scale, (double)rows[i].scale);
  }
  test_rng rng;
  test_rng_init(&rng, seed + 20);
  for (int i = 0; i < 100000; i++) {
    fp8_format format = (fp8_format)(i % 2);
    float amax = (float)exp2(test_rng_uniform(&rng, -100, 100));
    float scale = 0.0f;
    ck_assert_int_eq(fp8_scale_from_amax(&scale, amax, format, why, sizeof why),
                     0);
    int exponent;
    ck_assert(frexpf(scale, &exponent) == 0.5f); /* a power of two */
    double max = fp8_max_finite(format);
    ck_assert((double)amax * scale <= max && (double)amax * scale * 2 > max);
  }
  const float bad[] = {NAN, INFINITY, -INFINITY, -1.0f};
  const char *found[] = {"nan", "inf", "-inf", "-1"};
  for (int i = 0; i < 4; i++) {
    float scale = 8.0f;
    why[0] = '\0';
    ck_assert_int_eq(
        fp8_scale_from_amax(&scale, bad[i], FP8_FORMAT_E4M3, why, sizeof why),
        -1);
    ck_assert(scale == 8.0f);
    ck_assert_msg(strstr(why, "expected a finite amax >= 0") &&
                      strstr(why, found[i]) && strstr(why, "e4m3"),
                  "message: %s", why);
  }
}
END_TEST

int main(void) {
  seed = test_seed("fp8");
  Suite *suite = suite_create("fp8");
  TCase *tc = tcase_create("fp8");
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, every_code_decodes_and_reencodes, 0, 2);
  tcase_add_loop_test(tc, encode_matches_nvidia, 0, 2);
  tcase_add_loop_test(tc, ties_go_to_even, 0, 2);
  tcase_add_loop_test(tc, specials_and_boundaries, 0, 2);
  tcase_add_loop_test(tc, random_floats_match_both_references, 0, 2);
  tcase_add_loop_test(tc, scaled_round_trips, 0, 2);
  tcase_add_test(tc, counts_saturation_underflow_nan);
  tcase_add_test(tc, scale_rule);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 0);
}
