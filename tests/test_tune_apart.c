/* test_tune_apart.c: when the step tuner's copy apart is taken
 * (train/tune_apart.h, tune_apart_accept): a copy whose tuning failed
 * writes no entry (has_entry 0, no choices) and must not be taken, nor one
 * that tuned a step of another size or more choices than a report holds;
 * a copy that chose is. Plain C: no GPU. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "tests/test_util.h"
#include "train/tune_apart.h"

/* What the caller of tune_apart_accept holds: the copy's report (large:
 * on the heap, with its entry), the reason. */
typedef struct copy {
  step_tune_report report;
  char why[256];
} copy;

/* A copy that tuned `calls` calls and wrote an entry of `slots` choices. */
static void copy_that_chose(copy *c, int calls, int slots) {
  ck_assert_ptr_nonnull(c);
  memset(c, 0, sizeof *c);
  c->report.tuned = 1;
  c->report.call_count = calls;
  c->report.slot_count = slots;
  c->report.has_entry = 1;
}

static int accept(copy *c, int call_count) {
  return tune_apart_accept(&c->report, call_count, c->why, sizeof c->why);
}

START_TEST(a_copy_that_chose_is_taken) {
  copy *c = malloc(sizeof *c);
  copy_that_chose(c, 12, 8);
  ck_assert_int_eq(accept(c, 12), 0);
  free(c);
}
END_TEST

/* As the tuner's failure path leaves it: tuned, no slots, no entry
 * written (has_entry 0). */
START_TEST(a_copy_whose_tuning_failed_is_not_taken) {
  copy *c = malloc(sizeof *c);
  copy_that_chose(c, 12, 0);
  c->report.has_entry = 0;
  ck_assert_int_eq(accept(c, 12), -1);
  ck_assert_ptr_nonnull(strstr(c->why, "tuning failed"));
  /* Its keep() failing: slots chosen, the entry never written. */
  copy_that_chose(c, 12, 8);
  c->report.has_entry = 0;
  ck_assert_int_eq(accept(c, 12), -1);
  free(c);
}
END_TEST

START_TEST(a_copy_of_another_step_is_not_taken) {
  copy *c = malloc(sizeof *c);
  copy_that_chose(c, 12, 8);
  ck_assert_int_eq(accept(c, 14), -1);
  ck_assert_str_eq(c->why, "it tuned 12 calls, this step has 14");
  copy_that_chose(c, 12, TUNE_MAX_SLOTS + 1);
  ck_assert_int_eq(accept(c, 12), -1);
  free(c);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("tune_apart");
  TCase *tc = tcase_create("core");
  tcase_add_test(tc, a_copy_that_chose_is_taken);
  tcase_add_test(tc, a_copy_whose_tuning_failed_is_not_taken);
  tcase_add_test(tc, a_copy_of_another_step_is_not_taken);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 0);
}
