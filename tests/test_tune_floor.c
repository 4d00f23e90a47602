/* test_tune_floor.c: the step tuner's floors (train/tune_rule.h), each at
 * its edge, without noise: an algorithm must gain TUNE_MIN_GAIN (10 %), a
 * call's way under --mode auto TUNE_MIN_GAIN_WAY (3 %), one whole step
 * against another TUNE_MIN_GAIN_STEPS (0.5 %); and tune_search judges a
 * slot by its own field's floor. */
#include <check.h>
#include <string.h>

#include "tests/test_util.h"
#include "train/tune_search.h"

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

START_TEST(each_floor_at_its_edge) {
  ck_assert_int_eq(wins_under(TUNE_MIN_GAIN, 0.105), 1);
  ck_assert_int_eq(wins_under(TUNE_MIN_GAIN, 0.095), 0);
  ck_assert_int_eq(wins_under(TUNE_MIN_GAIN_WAY, 0.032), 1);
  ck_assert_int_eq(wins_under(TUNE_MIN_GAIN_WAY, 0.028), 0);
  ck_assert_int_eq(wins_under(TUNE_MIN_GAIN_STEPS, 0.006), 1);
  ck_assert_int_eq(wins_under(TUNE_MIN_GAIN_STEPS, 0.004), 0);
}
END_TEST

/* The measure of a slot 0 whose value 1 is `gain` faster: every pair the
 * same (no noise), time counted as spent. */
static int gain_measure(void *self, const tune_config *a, const tune_config *b,
                        int pairs, float *base, float *cand, double *spent) {
  const double *gain = self;
  for (int i = 0; i < pairs; i++) {
    base[i] = (float)(1.0 - (a->value[0] == 1 ? *gain : 0.0));
    cand[i] = (float)(1.0 - (b->value[0] == 1 ? *gain : 0.0));
  }
  *spent = 2.0 * pairs;
  return 0;
}

/* The value tune_search leaves in a two-value slot of `field` whose
 * second value is `gain` faster. */
static int searched(tune_field field, double gain) {
  tune_slot slot;
  memset(&slot, 0, sizeof slot);
  slot.field = field;
  slot.count = 2;
  slot.ok[0] = slot.ok[1] = 1;
  slot.alone_us[0] = slot.alone_us[1] = 10.0f;
  int visit = 0;
  tune_ops ops = {&gain, gain_measure};
  tune_log log;
  tune_log_init(&log, 1e9);
  tune_config c;
  memset(&c, 0, sizeof c);
  ck_assert_int_eq(tune_search(&c, &slot, &visit, 1, &ops, &log), 0);
  return c.value[0];
}

START_TEST(a_slot_is_judged_by_its_fields_floor) {
  ck_assert(tune_slot_floor(&(tune_slot){.field = TUNE_FIELD_WAY}) ==
            TUNE_MIN_GAIN_WAY);
  ck_assert(tune_slot_floor(&(tune_slot){.field = TUNE_FIELD_ALGO}) ==
            TUNE_MIN_GAIN);
  ck_assert(tune_slot_floor(&(tune_slot){.field = TUNE_FIELD_PLAIN}) ==
            TUNE_MIN_GAIN);
  /* 5 %: a way wins, an algorithm stays; 2 %: neither. */
  ck_assert_int_eq(searched(TUNE_FIELD_WAY, 0.05), 1);
  ck_assert_int_eq(searched(TUNE_FIELD_ALGO, 0.05), 0);
  ck_assert_int_eq(searched(TUNE_FIELD_WAY, 0.02), 0);
}
END_TEST

int main(void) {
  Suite *s = suite_create("tune_floor");
  TCase *tc = tcase_create("floors");
  tcase_add_test(tc, each_floor_at_its_edge);
  tcase_add_test(tc, a_slot_is_judged_by_its_fields_floor);
  suite_add_tcase(s, tc);
  return test_run_suite(s, 0);
}
