/* test_tune_floor.c: the step tuner's rule (train/tune_rule.h) on
 * hand-made samples: the median difference, the noise from the MAD, the
 * verdict; and its floors, each at its edge, without noise: an algorithm must
 * gain TUNE_MIN_GAIN (10 %), a call's way under --mode auto TUNE_MIN_GAIN_WAY
 * (3 %), one whole step against another TUNE_MIN_GAIN_STEPS (0.5 %).
 * test_tune_search holds the search judging each slot by its field's floor. */
#include <check.h>

#include "tests/test_util.h"
#include "train/tune_rule.h"

/* Whether a challenger `gain` (a fraction of a 1 ms step) faster in every
 * pair wins under `floor`. */
static int wins_under(double floor, double gain) {
  float base[TUNE_PAIRS], cand[TUNE_PAIRS];
  for (int i = 0; i < TUNE_PAIRS; i++) {
    base[i] = 1.0f;
    cand[i] = (float)(1.0 - gain);
  }
  tune_verdict v;
  tune_rule_judge(&v, base, cand, TUNE_PAIRS, floor);
  return v.wins;
}

/* The rule's numbers on hand-made samples: the median difference, the
 * noise from the MAD, the verdict. */
START_TEST(rule_arithmetic) {
  float base[4] = {1.0f, 1.0f, 1.0f, 1.0f};
  float cand[4] = {0.88f, 0.89f, 0.91f, 0.92f};
  tune_verdict v;
  tune_rule_judge(&v, base, cand, 4, TUNE_MIN_GAIN_STEPS);
  ck_assert_double_eq_tol(v.diff_ms, -0.10, 1e-6);
  /* |d - median| = 0.02, 0.01, 0.01, 0.02: MAD 0.015. */
  ck_assert_double_eq_tol(v.noise_ms, 1.2533 * 1.4826 * 0.015 / 2.0, 1e-6);
  ck_assert_int_eq(v.wins, 1);
  float spread[4] = {0.5f, 1.5f, 0.8f, 1.2f}; /* median 1.0, noisy */
  tune_rule_judge(&v, base, spread, 4, TUNE_MIN_GAIN_STEPS);
  ck_assert_int_eq(v.wins, 0);
  ck_assert_int_eq(tune_rule_out_early(base, spread, 4), 1);
  ck_assert_int_eq(tune_rule_out_early(base, cand, 4), 0);
  ck_assert_double_eq_tol(tune_median(cand, 4), 0.90, 1e-6);
  ck_assert_double_eq_tol(tune_median(cand, 3), 0.89, 1e-6);
  /* The floors (test_tune_floor holds each one's edges): a clear 5 %
   * gain wins between whole steps, not as an algorithm. */
  float five[4] = {0.95f, 0.95f, 0.95f, 0.95f};
  tune_rule_judge(&v, base, five, 4, TUNE_MIN_GAIN_STEPS);
  ck_assert_int_eq(v.wins, 1);
  tune_rule_judge(&v, base, five, 4, TUNE_MIN_GAIN);
  ck_assert_int_eq(v.wins, 0);
}
END_TEST

START_TEST(each_floor_at_its_edge) {
  ck_assert_int_eq(wins_under(TUNE_MIN_GAIN, 0.105), 1);
  ck_assert_int_eq(wins_under(TUNE_MIN_GAIN, 0.095), 0);
  ck_assert_int_eq(wins_under(TUNE_MIN_GAIN_WAY, 0.032), 1);
  ck_assert_int_eq(wins_under(TUNE_MIN_GAIN_WAY, 0.028), 0);
  ck_assert_int_eq(wins_under(TUNE_MIN_GAIN_STEPS, 0.006), 1);
  ck_assert_int_eq(wins_under(TUNE_MIN_GAIN_STEPS, 0.004), 0);
}
END_TEST

int main(void) {
  Suite *s = suite_create("tune_floor");
  TCase *tc = tcase_create("floors");
  tcase_add_test(tc, rule_arithmetic);
  tcase_add_test(tc, each_floor_at_its_edge);
  suite_add_tcase(s, tc);
  return test_run_suite(s, 0);
}
