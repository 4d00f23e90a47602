/* test_fp8_rules.c: the wrapper's FP8 rules (lt/lt_shape.h, lt_shape_check):
 * every FP8 call the step makes passes them (its shapes: layers/linear.h),
 * and each broken rule is refused with the cuBLASLt rule named (the GPU
 * suite test_mlp_fp8_train checks that lt_matmul refuses the same calls
 * before cuBLASLt sees them). Plain C: runs anywhere. */
#include <check.h>
#include <string.h>

#include "layers/linear.h"
#include "lt/lt_shape.h"
#include "tests/test_util.h"

/* The FP8 step's builders at the widths of the benchmarked networks as
 * the FP8 step runs them (padded to 16: 784-112-16, 784-4096-4096-16), at
 * every batch: the weight GEMM's k is the batch rounded up to 16 (37 ->
 * 48), so no call breaks a rule and none falls back. */
START_TEST(the_steps_calls_pass) {
  static const int sizes[][3] = {
      {784, 4096, 4096}, {4096, 16, 4096}, {784, 112, 256}, {112, 16, 256},
      {784, 112, 96},    {144, 112, 2656}, {784, 112, 37},  {112, 16, 1}};
  for (int i = 0; i < 8; i++) {
    int in = sizes[i][0], out = sizes[i][1], n = sizes[i][2];
    lt_shape shapes[6] = {linear_shape_forward_fp8(in, out, n, 1, LT_FP8_NONE),
                          linear_shape_forward_fp8(in, out, n, 0, LT_FP8_NONE),
                          linear_shape_forward_fp8(in, out, n, 1, LT_FP8_E4M3),
                          lt_shape_activation(linear_shape_forward_fp8(
                                                  in, out, n, 1, LT_FP8_E4M3),
                                              LT_ACTIVATION_GELU),
                          linear_shape_data_fp8(in, out, n, LT_FP8_E5M2),
                          linear_shape_weights_fp8(in, out, n, LT_FP8_E5M2)};
    ck_assert_int_eq(shapes[5].k, lt_ld_fp8(n));
    for (int s = 0; s < 6; s++) {
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
  lt_shape fwd = linear_shape_forward_fp8(784, 112, 96, 1, LT_FP8_NONE);
  lt_shape cases[18];
  const char *words[18];
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
  s = linear_shape_data_fp8(112, 16, 96, LT_FP8_E5M2);
  s.transb = 1, s.ldb = 96;
  cases[count] = s, words[count++] = "only in the TN format";
  s = fwd;
  s.lda = s.ldb = 792; /* lt_ld's 8-multiple, not 16 */
  cases[count] = s, words[count++] = "multiples of 16";
  s = linear_shape_weights_fp8(112, 16, 96, LT_FP8_E5M2);
  s.epilogue = LT_EPILOGUE_BGRADA;
  s.transa = 0, s.lda = 112; /* BGRADA's own rule met, FP8's TN broken */
  cases[count] = s, words[count++] = "TN";
  s = linear_shape_forward_fp8(784, 112, 96, 1, LT_FP8_NONE);
  s.m = 100; /* an unpadded width */
  cases[count] = s, words[count++] = "m and k multiples of 16";
  s = linear_shape_data_fp8(112, 16, 96, LT_FP8_E5M2);
  s.k = 10;
  cases[count] = s, words[count++] = "m and k multiples of 16";
  s = linear_shape_weights_fp8(112, 16, 37, LT_FP8_E5M2);
  s.k = 37; /* the batch unpadded */
  cases[count] = s, words[count++] = "found m=112, k=37";
  s = linear_shape_data_fp8(112, 112, 96, LT_FP8_E5M2);
  s.epilogue = LT_EPILOGUE_DRELU_BGRAD;
  s.aux_ld = lt_aux_ld(112);
  cases[count] = s, words[count++] = "NOT_SUPPORTED for every bias-gradient";
  s = lt_shape_forward(784, 100, 96, 0);
  s.fast_accum = 1;
  cases[count] = s, words[count++] = "FP8 calls only";
  /* An FP8 D: only with FP8 A and B, only E4M3, a 16-multiple ldd, only
   * the forward epilogues. */
  s = lt_shape_forward(784, 112, 96, 1);
  s.type = LT_DTYPE_BF16;
  s.d_fp8 = LT_FP8_E4M3;
  cases[count] = s, words[count++] = "an FP8 D";
  s = linear_shape_forward_fp8(784, 112, 96, 1, LT_FP8_E5M2);
  cases[count] = s, words[count++] = "written in e4m3";
  s = linear_shape_forward_fp8(784, 112, 96, 1, LT_FP8_E4M3);
  s.ldd = 120;
  cases[count] = s, words[count++] = "ldd a multiple of 16";
  s = linear_shape_data_fp8(112, 112, 96, LT_FP8_E5M2);
  s.d_fp8 = LT_FP8_E4M3;
  s.epilogue = LT_EPILOGUE_DRELU;
  s.aux_ld = lt_aux_ld(112);
  cases[count] = s, words[count++] = "forward epilogues only";
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
  lt_shape s = linear_shape_weights_fp8(112, 16, 96, LT_FP8_E5M2);
  char text[160];
  lt_shape_describe(text, sizeof text, &s);
  ck_assert_str_eq(text, "DEFAULT e4m3*e5m2->bf16 m=112 n=16 k=96 transa=T "
                         "transb=N");
  s = linear_shape_forward_fp8(784, 112, 96, 1, LT_FP8_NONE);
  s.fast_accum = 1;
  lt_shape_describe(text, sizeof text, &s);
  ck_assert_str_eq(text, "RELU_AUX_BIAS e4m3*e4m3->bf16 m=112 n=96 k=784 "
                         "transa=T transb=N fast-accum");
  s = linear_shape_forward_fp8(784, 112, 96, 1, LT_FP8_E4M3);
  lt_shape_describe(text, sizeof text, &s);
  ck_assert_str_eq(text, "RELU_AUX_BIAS e4m3*e4m3->e4m3 m=112 n=96 k=784 "
                         "transa=T transb=N");
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
