/* test_xent_args.c: the loss refuses an empty batch before it touches the
 * GPU (it once divided by a zero block size instead: SIGFPE), and sizes
 * its scratch for one even when asked for none. Runs without a GPU. */
#include <check.h>
#include <stddef.h>

#include "layers/xent.h"
#include "tests/test_util.h"

START_TEST(empty_batch_is_refused) {
  double stats[2] = {0, 0};
  int labels[1] = {0};
  float logits[16] = {0}, dlogits[16] = {0}, scratch[64] = {0};
  for (int n = 0; n >= -1; n--)
    ck_assert_int_eq(xent_loss_grad(LT_DTYPE_F32, dlogits, stats, logits, 16,
                                    labels, 10, n, 1.0f, scratch, NULL, 0),
                     -1);
}
END_TEST

START_TEST(scratch_for_no_samples_is_one_block) {
  ck_assert_uint_eq(xent_scratch_bytes(0), xent_scratch_bytes(1));
  ck_assert_uint_gt(xent_scratch_bytes(1), 0);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("xent_args");
  TCase *tc = tcase_create("xent_args");
  tcase_add_test(tc, empty_batch_is_refused);
  tcase_add_test(tc, scratch_for_no_samples_is_one_block);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 0);
}
