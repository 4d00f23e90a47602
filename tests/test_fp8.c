/* test_fp8.c: the FP8 casts of layers/fp8.h bit for bit. Every code of
 * both formats against a decoder written here from the bit fields; the
 * encoder against NVIDIA's own __nv_cvt_float_to_fp8(x, __NV_SATFINITE,
 * fmt) (cuda_fp8.h's host code, tests/fp8_nvidia.cpp) over every float
 * whose binade the format can reach, both signs, and sampled mantissas in
 * every other binade; against a nearest-value search over the decoded
 * codes (ties to even, saturation) on every tie, the boundaries and a
 * random sample (the scales and counts: test_fp8_scale.c). Plain C: runs
 * anywhere. */
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

/* (a) Every code decodes to what its bits mean (NVIDIA's decoder agrees)
 * and re-encodes to itself; NaNs to a NaN; E5M2's inf to max finite. */
START_TEST(every_code_decodes_and_reencodes) {
  const format_fields *f = fp8_ref_fields(_i);
  int e5m2 = f->format == LT_FP8_E5M2;
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
                    lt_fp8_name(f->format), c, (double)got, (double)nvidia);
      ck_assert_msg(fp8_is_nan(fp8_encode(got, f->format), f->format),
                    "%s NaN did not encode to a NaN code",
                    lt_fp8_name(f->format));
      continue;
    }
    ck_assert_msg(!fp8_is_nan(code, f->format), "%s code 0x%02X is no NaN",
                  lt_fp8_name(f->format), c);
    ck_assert_msg((double)got == want && !signbit(got) == !signbit(want) &&
                      (double)nvidia == want,
                  "%s code 0x%02X: expected %.10g, decoded %.10g (NVIDIA "
                  "%.10g)",
                  lt_fp8_name(f->format), c, want, (double)got, (double)nvidia);
    uint8_t again = fp8_encode(got, f->format);
    if (isinf(want)) {
      infs++;
      ck_assert_int_eq(again, (code & 0x80) | f->max_code);
      continue;
    }
    finite++;
    largest = fmax(largest, want);
    ck_assert_msg(again == code, "%s code 0x%02X (%g) re-encoded to 0x%02X",
                  lt_fp8_name(f->format), c, want, again);
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
  uint8_t nvidia = fp8_nvidia_encode(x, f->format == LT_FP8_E5M2);
  if (mine == nvidia) return 0;
  if ((*printed)++ < 10)
    printf("%s: x = %a (0x%08X): fp8_encode 0x%02X, NVIDIA 0x%02X\n",
           lt_fp8_name(f->format), (double)x, bits_of(x), mine, nvidia);
  return 1;
}

/* (b) Against NVIDIA's host conversion: every float in the binades from a
 * quarter of the smallest subnormal up to four times the largest finite
 * value (below them everything is 0, above everything saturates), both
 * signs; in every other binade (float subnormals, inf and NaN included)
 * 4096 mantissas: every top-12-bit pattern with low bits 0, 1, or all
 * ones, in turn. */
START_TEST(encode_matches_nvidia) {
  const format_fields *f = fp8_ref_fields(_i);
  int max_log2 = f->format == LT_FP8_E5M2 ? 15 : 8;
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
         lt_fp8_name(f->format), compared, differ);
  ck_assert_msg(differ == 0, "%s: %ld of %ld floats encode unlike NVIDIA's",
                lt_fp8_name(f->format), differ, compared);
}
END_TEST

/* Checks x against both references and, when `want` >= 0, the code
 * written in the test. */
static void check_encode(float x, int want, const format_fields *f) {
  uint8_t mine = fp8_encode(x, f->format);
  uint8_t nvidia = fp8_nvidia_encode(x, f->format == LT_FP8_E5M2);
  uint8_t nearest = reference_encode(x, f);
  ck_assert_msg(same_code(mine, nearest, f) && mine == nvidia &&
                    (want < 0 || mine == want),
                "%s: x = %a: fp8_encode 0x%02X, nearest 0x%02X, NVIDIA "
                "0x%02X, expected %s0x%02X",
                lt_fp8_name(f->format), (double)x, mine, nearest, nvidia,
                want < 0 ? "(any) " : "", want < 0 ? 0 : want);
}

/* Every midpoint between adjacent non-negative finite values (and the one
 * past max finite) goes to the even code, its float neighbours to the
 * nearer code; both signs. */
START_TEST(ties_go_to_even) {
  const format_fields *f = fp8_ref_fields(_i);
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
  const format_fields *f = fp8_ref_fields(_i);
  int e5m2 = f->format == LT_FP8_E5M2;
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
  const format_fields *f = fp8_ref_fields(_i);
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
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 0);
}
