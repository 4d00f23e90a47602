/* test_tune_apart.c: when the step tuner's copy apart is taken
 * (train/tune_apart.h, tune_apart_accept): a copy whose tuning failed
 * writes no entry (count -1, no choices) and must not be taken, nor one
 * that tuned a step of another size or more choices than a report holds;
 * a copy that chose is. Plain C: no GPU. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "tests/test_util.h"
#include "train/tune_apart.h"

/* A copy that tuned `calls` calls and wrote an entry of `slots` choices. */
static void copy_that_chose(step_tune_report *r, tune_cache_entry *e, int calls,
                            int slots) {
  memset(r, 0, sizeof *r);
  memset(e, 0, sizeof *e);
  r->tuned = 1;
  r->call_count = calls;
  r->slot_count = slots;
  e->count = slots;
}

START_TEST(a_copy_that_chose_is_taken) {
  step_tune_report *r = malloc(sizeof *r);
  tune_cache_entry *e = malloc(sizeof *e);
  char why[256] = "";
  copy_that_chose(r, e, 12, 8);
  ck_assert_int_eq(tune_apart_accept(r, e, 12, why, sizeof why), 0);
  free(r);
  free(e);
}
END_TEST

/* As the tuner's failure path leaves it: tuned, no slots, the entry as
 * the caller set it before (count -1), nothing written. */
START_TEST(a_copy_whose_tuning_failed_is_not_taken) {
  step_tune_report *r = malloc(sizeof *r);
  tune_cache_entry *e = malloc(sizeof *e);
  char why[256] = "";
  copy_that_chose(r, e, 12, 0);
  e->count = -1;
  ck_assert_int_eq(tune_apart_accept(r, e, 12, why, sizeof why), -1);
  ck_assert_ptr_nonnull(strstr(why, "tuning failed"));
  /* Its keep() failing: slots chosen, the entry never written. */
  copy_that_chose(r, e, 12, 8);
  e->count = -1;
  ck_assert_int_eq(tune_apart_accept(r, e, 12, why, sizeof why), -1);
  free(r);
  free(e);
}
END_TEST

START_TEST(a_copy_of_another_step_is_not_taken) {
  step_tune_report *r = malloc(sizeof *r);
  tune_cache_entry *e = malloc(sizeof *e);
  char why[256] = "";
  copy_that_chose(r, e, 12, 8);
  ck_assert_int_eq(tune_apart_accept(r, e, 14, why, sizeof why), -1);
  ck_assert_str_eq(why, "it tuned 12 calls, this step has 14");
  copy_that_chose(r, e, 12, TUNE_MAX_SLOTS + 1);
  ck_assert_int_eq(tune_apart_accept(r, e, 12, why, sizeof why), -1);
  free(r);
  free(e);
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
