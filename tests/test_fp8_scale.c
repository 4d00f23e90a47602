/* test_fp8_scale.c: layers/fp8.h's scaled casts: power-of-two scaled round
 * trips exact, a tensor scaled by its own amax within the format's unit
 * roundoff and never saturated (each code NVIDIA's cast of the product);
 * the saturation / underflow / NaN counts; the power-of-two scale rule and
 * its refusals. Plain C: runs anywhere. */
#include <check.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "layers/fp8.h"
#include "tests/fp8_nvidia.h"
#include "tests/test_fp8_ref.h"
#include "tests/test_util.h"

static uint64_t seed;

/* (c) Scaled round trips. With a power-of-two scale every finite code
 * comes back exactly; a tensor scaled by its amax's scale loses at most
 * the format's unit roundoff (2^-4 E4M3, 2^-3 E5M2) relative in the
 * normal range, half the smallest subnormal (over the scale) below it,
 * and nothing saturates. */
START_TEST(scaled_round_trips) {
  const format_fields *f = fp8_ref_fields(_i);
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
    test_fp8_counts counts;
    test_fp8_encode_array(q, &counts, x, N, scale, f->format);
    ck_assert_msg(counts.saturated == 0 && counts.nan == 0,
                  "%s amax %g scale %g: %zu saturated, %zu NaN",
                  lt_fp8_name(f->format), (double)amax, (double)scale,
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
                    lt_fp8_name(f->format), (double)x[i], (double)scale,
                    (double)y, err, bound);
      /* The product is exact, so the scaled cast is NVIDIA's cast of it. */
      ck_assert_int_eq(
          q[i], fp8_nvidia_encode(x[i] * scale, f->format == LT_FP8_E5M2));
      flushed += (q[i] & 0x7F) == 0;
    }
    ck_assert_uint_eq(counts.flushed, flushed);
  }
}
END_TEST

/* (d) The counts: saturated, flushed to zero and NaN, each element by the
 * rule of fp8.h, with the codes. */
START_TEST(counts_saturation_underflow_nan) {
  const format_fields *f = fp8_ref_fields(0); /* E4M3 */
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
  test_fp8_counts counts = {99, 99, 99};
  test_fp8_encode_array(q, &counts, x, COUNT, 1.0f, f->format);
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
  test_fp8_encode_array(&code, &counts, &small, 1, 1.0f, f->format);
  ck_assert(code == 0x00 && counts.flushed == 1);
  test_fp8_encode_array(&code, &counts, &small, 1, 1024.0f, f->format);
  ck_assert(code == fp8_encode(small * 1024.0f, f->format) &&
            counts.flushed == 0);
  test_fp8_encode_array(&code, &counts, &one, 1, 512.0f, f->format);
  ck_assert(code == 0x7E && counts.saturated == 1);
  test_fp8_encode_array(&code, &counts, &one, 1, 256.0f, f->format);
  ck_assert(code == 0x78 && counts.saturated == 0);
  /* A finite x whose product overflows FP32 saturates; inf * 0 is NaN. */
  float big = 1e30f, inf = INFINITY;
  test_fp8_encode_array(&code, &counts, &big, 1, 1e30f, f->format);
  ck_assert(code == 0x7E && counts.saturated == 1 && counts.nan == 0);
  test_fp8_encode_array(&code, &counts, &inf, 1, 0.0f, f->format);
  ck_assert(code == 0x7F && counts.nan == 1 && counts.saturated == 0);
  test_fp8_encode_array(&code, NULL, &one, 1, 1.0f, f->format); /* no counts */
  ck_assert_int_eq(code, 0x38);
  /* E5M2: inf saturates to 57344, counted. */
  test_fp8_encode_array(&code, &counts, &inf, 1, 1.0f, LT_FP8_E5M2);
  ck_assert(code == 0x7B && counts.saturated == 1);
}
END_TEST

/* (e) The scale: the largest power of two with amax * scale <= max
 * finite; amax 0 (an all-zero tensor, an empty delayed history) keeps the
 * previous scale, as Transformer Engine's delayed scaling does (issue 28,
 * defect 2: a scale of 1 flushed 95 % of a network's first gradients);
 * NaN, inf and negative amax refused, the scale left as it was. The rule
 * is fp8_scale_rule, the function the GPU's roll and casts run. */
START_TEST(scale_rule) {
  const struct {
    lt_fp8 format;
    float amax, scale;
  } rows[] = {
      {LT_FP8_E4M3, 448.0f, 1.0f},
      {LT_FP8_E4M3, 447.0f, 1.0f},
      {LT_FP8_E4M3, 0x1.c00002p8f, 0.5f}, /* just above 448 */
      {LT_FP8_E4M3, 224.0f, 2.0f},
      {LT_FP8_E4M3, 1.0f, 256.0f},     /* 448 / 1 -> 256 */
      {LT_FP8_E4M3, 1e-3f, 262144.0f}, /* 448000 -> 2^18 */
      {LT_FP8_E4M3, FLT_MAX, 0x1p-120f},
      {LT_FP8_E4M3, FLT_MIN, 0x1p126f}, /* capped at 2^126 */
      {LT_FP8_E4M3, FLT_TRUE_MIN, 0x1p126f},
      {LT_FP8_E4M3, 0.0f, 8.0f}, /* kept: the previous scale is 8 */
      {LT_FP8_E5M2, 57344.0f, 1.0f},
      {LT_FP8_E5M2, 1.0f, 32768.0f},
      {LT_FP8_E5M2, 0.0f, 8.0f},
  };
  char why[200];
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    float scale = 8.0f;
    ck_assert_int_eq(fp8_scale_from_amax(&scale, rows[i].amax, rows[i].format,
                                         why, sizeof why),
                     0);
    ck_assert_msg(scale == rows[i].scale, "%s amax %a: scale %a, expected %a",
                  lt_fp8_name(rows[i].format), (double)rows[i].amax,
                  (double)scale, (double)rows[i].scale);
  }
  test_rng rng;
  test_rng_init(&rng, seed + 20);
  for (int i = 0; i < 100000; i++) {
    lt_fp8 format = i % 2 ? LT_FP8_E5M2 : LT_FP8_E4M3;
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
        fp8_scale_from_amax(&scale, bad[i], LT_FP8_E4M3, why, sizeof why), -1);
    ck_assert(scale == 8.0f);
    ck_assert_msg(strstr(why, "expected a finite amax >= 0") &&
                      strstr(why, found[i]) && strstr(why, "e4m3"),
                  "message: %s", why);
  }
  /* The outcomes the roll counts by. */
  int outcome = 99;
  ck_assert(fp8_scale_rule(0.0f, 448.0f, 4.0f, &outcome) == 4.0f &&
            outcome == FP8_SCALE_KEPT);
  ck_assert(fp8_scale_rule(INFINITY, 448.0f, 4.0f, &outcome) == 4.0f &&
            outcome == FP8_SCALE_BAD);
  ck_assert(fp8_scale_rule(1.0f, 448.0f, 4.0f, &outcome) == 256.0f &&
            outcome == FP8_SCALE_NEW);
}
END_TEST

int main(void) {
  seed = test_seed("fp8_scale");
  Suite *suite = suite_create("fp8_scale");
  TCase *tc = tcase_create("fp8_scale");
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, scaled_round_trips, 0, 2);
  tcase_add_test(tc, counts_saturation_underflow_nan);
  tcase_add_test(tc, scale_rule);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 0);
}
