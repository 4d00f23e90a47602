/* test_tune_floor.c: the step tuner's rule (train/tune_rule.h) on
 * hand-made samples: the median difference, the noise from the MAD, the
 * verdict; and its floors, each at its edge, without noise: an algorithm must
 * gain TUNE_MIN_GAIN_AMPLE (10 %) of the step, or TUNE_MIN_GAIN (1 %) and
 * TUNE_MIN_GAIN_MS (6 us) a step, a call's way under --mode auto
 * TUNE_MIN_GAIN_WAY (3 %), one whole step against another
 * TUNE_MIN_GAIN_STEPS (0.5 %); and the check in a fresh context
 * (tune_rule_check). test_tune_search holds the search judging each slot by
 * its field's floor. */
#include <check.h>

#include "tests/test_util.h"
#include "train/tune_rule.h"

/* Whether a challenger `gain` (a fraction of a step of step_ms) faster in
 * every pair wins under `floor`. */
static int wins_under(tune_floor floor, double step_ms, double gain) {
  float base[TUNE_PAIRS], cand[TUNE_PAIRS];
  for (int i = 0; i < TUNE_PAIRS; i++) {
    base[i] = (float)step_ms;
    cand[i] = (float)(step_ms * (1.0 - gain));
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
  tune_rule_judge(&v, base, cand, 4, TUNE_FLOOR_STEPS);
  ck_assert_double_eq_tol(v.diff_ms, -0.10, 1e-6);
  /* |d - median| = 0.02, 0.01, 0.01, 0.02: MAD 0.015. */
  ck_assert_double_eq_tol(v.noise_ms, 1.2533 * 1.4826 * 0.015 / 2.0, 1e-6);
  ck_assert_int_eq(v.wins, 1);
  float spread[4] = {0.5f, 1.5f, 0.8f, 1.2f}; /* median 1.0, noisy */
  tune_rule_judge(&v, base, spread, 4, TUNE_FLOOR_STEPS);
  ck_assert_int_eq(v.wins, 0);
  ck_assert_int_eq(tune_rule_out_early(base, spread, 4), 1);
  ck_assert_int_eq(tune_rule_out_early(base, cand, 4), 0);
  ck_assert_double_eq_tol(tune_median(cand, 4), 0.90, 1e-6);
  ck_assert_double_eq_tol(tune_median(cand, 3), 0.89, 1e-6);
  /* The floors (each_floor_at_its_edge): a clear 5 % gain of a 0.1 ms
   * step wins between whole steps, not as an algorithm (5 us). */
  float tenth[4] = {0.1f, 0.1f, 0.1f, 0.1f};
  float five[4] = {0.095f, 0.095f, 0.095f, 0.095f};
  tune_rule_judge(&v, tenth, five, 4, TUNE_FLOOR_STEPS);
  ck_assert_int_eq(v.wins, 1);
  tune_rule_judge(&v, tenth, five, 4, TUNE_FLOOR_ALGO);
  ck_assert_int_eq(v.wins, 0);
}
END_TEST

/* The algorithm floor's three edges: 1 % of a 1 ms step (10 us, above 6),
 * 6 us of a 0.1 ms step (6 %, above 1 %), 10 % of a 0.04 ms step (4 us,
 * enough though under 6); the FP8 step of
 * 784-4096-4096-10 (0.585 ms) gains 8.2 us by its second forward GEMM's
 * second candidate (docs/performance.md, "Session 12"): it wins. The way
 * and the whole-step floors are fractions alone. */
START_TEST(each_floor_at_its_edge) {
  ck_assert_int_eq(wins_under(TUNE_FLOOR_ALGO, 1.0, 0.0105), 1);
  ck_assert_int_eq(wins_under(TUNE_FLOOR_ALGO, 1.0, 0.0095), 0);
  ck_assert_int_eq(wins_under(TUNE_FLOOR_ALGO, 0.1, 0.065), 1);
  ck_assert_int_eq(wins_under(TUNE_FLOOR_ALGO, 0.1, 0.055), 0);
  ck_assert_int_eq(wins_under(TUNE_FLOOR_ALGO, 0.04, 0.105), 1);
  ck_assert_int_eq(wins_under(TUNE_FLOOR_ALGO, 0.04, 0.095), 0);
  ck_assert_int_eq(wins_under(TUNE_FLOOR_ALGO, 0.585, 0.0082 / 0.585), 1);
  ck_assert_int_eq(wins_under(TUNE_FLOOR_WAY, 0.1, 0.032), 1);
  ck_assert_int_eq(wins_under(TUNE_FLOOR_WAY, 0.1, 0.028), 0);
  ck_assert_int_eq(wins_under(TUNE_FLOOR_STEPS, 0.1, 0.006), 1);
  ck_assert_int_eq(wins_under(TUNE_FLOOR_STEPS, 0.1, 0.004), 0);
  ck_assert_double_eq(tune_floor_ms(TUNE_FLOOR_ALGO, 0.1), TUNE_MIN_GAIN_MS);
  ck_assert_double_eq_tol(tune_floor_ms(TUNE_FLOOR_ALGO, 2.0), 0.02, 1e-12);
  ck_assert_double_eq_tol(tune_floor_ms(TUNE_FLOOR_ALGO, 0.03), 0.003, 1e-12);
  ck_assert_double_eq_tol(tune_floor_ms(TUNE_FLOOR_WAY, 0.03), 0.0009, 1e-12);
}
END_TEST

/* The check keeps a set only when it wins the pairs and also beats the
 * untuned step as it ran before the set's kernels were loaded (on the
 * H200 the default network's untuned step ran 0.1023 ms alone, 0.1094
 * beside the chosen set's kernels, which ran 0.1052: the pairs said 4 %
 * faster, the epochs 1 % slower), by TUNE_CHECK_MIN_MS at least (a set
 * timed 1.2 us faster than the untuned one alone ran 2 % slower in its
 * epochs). */
START_TEST(a_check_needs_both_gains) {
  tune_verdict v = {.pairs = TUNE_PAIRS,
                    .base_ms = 0.1094,
                    .cand_ms = 0.1052,
                    .diff_ms = -0.0042,
                    .noise_ms = 0.0003,
                    .wins = 1};
  ck_assert_int_eq(tune_rule_check(&v, 0.1023, 0.0001, TUNE_MIN_GAIN_STEPS, 0),
                   0);
  ck_assert_int_eq(tune_rule_check(&v, 0.1090, 0.0001, TUNE_MIN_GAIN_STEPS, 0),
                   1);
  /* 0.0064 ms faster: within the two medians' noise (4 x 0.0017). */
  ck_assert_int_eq(tune_rule_check(&v, 0.1116, 0.0017, TUNE_MIN_GAIN_STEPS, 0),
                   0);
  /* 0.0020 ms faster: beyond the noise and 0.5 %, short of the 3 us. */
  v.cand_ms = 0.0961;
  ck_assert_int_eq(tune_rule_check(&v, 0.0981, 0.0001, TUNE_MIN_GAIN_STEPS, 0),
                   0);
  ck_assert_int_eq(tune_rule_check(&v, 0.0992, 0.0001, TUNE_MIN_GAIN_STEPS, 0),
                   1);
  v.wins = 0; /* lost the pairs */
  ck_assert_int_eq(tune_rule_check(&v, 0.2000, 0.0001, TUNE_MIN_GAIN_STEPS, 0),
                   0);
}
END_TEST

/* Sets that differ in ways only: the pairs decide. On the H200 an auto
 * step's whole-step choice won its pairs by 4.5 us (0.0943 -> 0.0897) but
 * beat the untuned step alone (0.0926) by 2.9 us, and the untuned set the
 * guard took ran 7 % slower in its epochs (784-1024-1024-10 TF32 GELU). */
START_TEST(ways_only_the_pairs_decide) {
  tune_verdict v = {.pairs = TUNE_PAIRS,
                    .base_ms = 0.0943,
                    .cand_ms = 0.0897,
                    .diff_ms = -0.0045,
                    .noise_ms = 0.0002,
                    .wins = 1};
  ck_assert_int_eq(tune_rule_check(&v, 0.0926, 0.0001, TUNE_MIN_GAIN_STEPS, 0),
                   0);
  ck_assert_int_eq(tune_rule_check(&v, 0.0926, 0.0001, TUNE_MIN_GAIN_STEPS, 1),
                   1);
  v.wins = 0;
  ck_assert_int_eq(tune_rule_check(&v, 0.2000, 0.0001, TUNE_MIN_GAIN_STEPS, 1),
                   0);
}
END_TEST

int main(void) {
  Suite *s = suite_create("tune_floor");
  TCase *tc = tcase_create("floors");
  tcase_add_test(tc, rule_arithmetic);
  tcase_add_test(tc, each_floor_at_its_edge);
  tcase_add_test(tc, a_check_needs_both_gains);
  tcase_add_test(tc, ways_only_the_pairs_decide);
  suite_add_tcase(s, tc);
  return test_run_suite(s, 0);
}
