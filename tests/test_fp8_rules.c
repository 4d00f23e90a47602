/* test_fp8_rules.c: the wrapper's FP8 rules (lt/lt_shape.h, lt_shape_check):
 * every FP8 call the step makes passes them, and each broken rule is
 * refused with the cuBLASLt rule named (the GPU suite test_mlp_fp8 checks
 * that lt_matmul refuses the same calls before cuBLASLt sees them). Plain
 * C: runs anywhere. */
#include <check.h>
#include <string.h>

#include "lt/lt_shape.h"
#include "tests/test_util.h"

/* The FP8 step's three builders at the widths of the benchmarked networks
 * as the FP8 step runs them (padded to 16: 784-112-16, 784-4096-4096-16),
 * batches that are multiples of 16 (the weight GEMM's k). */
START_TEST(the_steps_calls_pass) {
  static const int sizes[][3] = {{784, 4096, 4096}, {4096, 16, 4096},
                                 {784, 112, 256},   {112, 16, 256},
                                 {784, 112, 96},    {144, 112, 2656}};
  for (int i = 0; i < 6; i++) {
    int in = sizes[i][0], out = sizes[i][1], n = sizes[i][2];
    lt_shape shapes[4] = {
        lt_shape_forward_fp8(in, out, n, 1, LT_FP8_E4M3, LT_FP8_E4M3),
        lt_shape_forward_fp8(in, out, n, 0, LT_FP8_E4M3, LT_FP8_E4M3),
        lt_shape_backward_data_fp8(in, out, n, LT_FP8_E4M3, LT_FP8_E5M2),
        lt_shape_backward_weights_fp8(in, out, n, LT_FP8_E4M3, LT_FP8_E5M2)};
    for (int s = 0; s < 4; s++) {
      char why[512] = "";
      ck_assert_msg(lt_shape_check(&shapes[s], why, sizeof why) == 0,
                    "sizes %d, shape %d: %s", i, s, why);
      ck_assert_int_eq(shapes[s].lda % 16, 0);
      ck_assert_int_eq(shapes[s].ldb % 16, 0);
      ck_assert(lt_shape_is_fp8(&shapes[s]));
    }
  }
  ck_assert_int_eq(lt_ld_fp8(100), 112);
  ck_assert_int_eq(lt_ld_fp8(10), 16);
  ck_assert_int_eq(lt_ld_fp8(784), 784);
  ck_assert_int_eq(lt_ld_fp8(2656), 2656);
}
END_TEST

START_TEST(broken_fp8_rules_are_named) {
  lt_shape fwd =
      lt_shape_forward_fp8(784, 112, 96, 1, LT_FP8_E4M3, LT_FP8_E4M3);
  lt_shape cases[12];
  const char *words[12];
  int count = 0;
  lt_shape s = fwd;
  s.b_fp8 = LT_FP8_NONE; /* one operand FP8 */
  cases[count] = s, words[count++] = "expected A and B both in FP8";
  s = fwd;
  s.a_fp8 = s.b_fp8 = LT_FP8_E5M2;
  cases[count] = s, words[count++] = "no e5m2 x e5m2";
  s = fwd;
  s.type = LT_DTYPE_F16;
  cases[count] = s, words[count++] = "bf16";
  s = fwd;
  s.transa = 0, s.lda = 112;
  cases[count] = s, words[count++] = "only in the TN format";
  s = lt_shape_backward_data_fp8(100, 10, 96, LT_FP8_E4M3, LT_FP8_E5M2);
  s.transb = 1, s.ldb = 96;
  cases[count] = s, words[count++] = "only in the TN format";
  s = fwd;
  s.lda = s.ldb = 792; /* lt_ld's 8-multiple, not 16 */
  cases[count] = s, words[count++] = "multiples of 16";
  s = lt_shape_backward_weights_fp8(112, 16, 96, LT_FP8_E4M3, LT_FP8_E5M2);
  s.epilogue = LT_EPILOGUE_BGRADA;
  s.transa = 0, s.lda = 112; /* BGRADA's own rule met, FP8's TN broken */
  cases[count] = s, words[count++] = "TN";
  s = lt_shape_forward_fp8(784, 100, 96, 1, LT_FP8_E4M3, LT_FP8_E4M3);
  cases[count] = s, words[count++] = "m and k multiples of 16"; /* m = 100 */
  s = lt_shape_backward_data_fp8(112, 10, 96, LT_FP8_E4M3, LT_FP8_E5M2);
  cases[count] = s, words[count++] = "m and k multiples of 16"; /* k = 10 */
  s = lt_shape_backward_weights_fp8(112, 16, 37, LT_FP8_E4M3, LT_FP8_E5M2);
  cases[count] = s, words[count++] = "found m=112, k=37"; /* a batch of 37 */
  s = lt_shape_backward_data_fp8(112, 112, 96, LT_FP8_E4M3, LT_FP8_E5M2);
  s.epilogue = LT_EPILOGUE_DRELU_BGRAD;
  s.aux_ld = lt_aux_ld(112);
  cases[count] = s, words[count++] = "NOT_SUPPORTED for every bias-gradient";
  s = lt_shape_forward(784, 100, 96, 0);
  s.fast_accum = 1;
  cases[count] = s, words[count++] = "FP8 calls only";
  for (int i = 0; i < count; i++) {
    char why[512] = "";
    ck_assert_msg(lt_shape_check(&cases[i], why, sizeof why) == -1,
                  "case %d passed", i);
    ck_assert_msg(strstr(why, words[i]) != NULL, "case %d: '%s' lacks '%s'", i,
                  why, words[i]);
  }
}
END_TEST

START_TEST(fp8_calls_describe_their_types) {
  lt_shape s =
      lt_shape_backward_weights_fp8(100, 10, 96, LT_FP8_E4M3, LT_FP8_E5M2);
  char text[160];
  lt_shape_describe(text, sizeof text, &s);
  ck_assert_str_eq(text, "DEFAULT e4m3*e5m2->bf16 m=100 n=10 k=96 transa=T "
                         "transb=N");
  s = lt_shape_forward_fp8(784, 100, 96, 1, LT_FP8_E4M3, LT_FP8_E4M3);
  s.fast_accum = 1;
  lt_shape_describe(text, sizeof text, &s);
  ck_assert_str_eq(text, "RELU_AUX_BIAS e4m3*e4m3->bf16 m=100 n=96 k=784 "
                         "transa=T transb=N fast-accum");
}
END_TEST

int main(void) {
  Suite *suite = suite_create("fp8_rules");
  TCase *tc = tcase_create("rules");
  tcase_add_test(tc, the_steps_calls_pass);
  tcase_add_test(tc, broken_fp8_rules_are_named);
  tcase_add_test(tc, fp8_calls_describe_their_types);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 0);
}
