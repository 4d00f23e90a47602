/* test_bench_rows.c: which of mnist_bench's rows (bench_rows.h) a run
 * keeps: all of them, only those of one precision and activation, none of a
 * precision the GPU refuses (gpu_precision_check), and only the rows of an
 * activation refused in one precision (the start-up probe) left out, not
 * that precision's other rows nor that activation's in other precisions;
 * and the rows' labels (+pad, +gelu). The rows themselves against the
 * recorded run: test_bench_json.c. Plain C, runs anywhere. */
#include <check.h>

#include "bench/bench_rows.h"
#include "tests/test_util.h"

START_TEST(selection_and_labels) {
  bench_row rows[BENCH_MAX_ROWS];
  int count = bench_rows_build(rows);
  bench_selection all = {.precision = -1, .activation = -1};
  bench_selection bf16_gelu = {.precision = GPU_PRECISION_BF16,
                               .activation = LT_ACTIVATION_GELU};
  /* A GPU that cannot run BF16 (gpu_precision_check): none of its rows. */
  bench_selection no_bf16 = {.precision = -1, .activation = -1};
  no_bf16.refused[GPU_PRECISION_BF16] = 1;
  int kept_all = 0, kept = 0, kept_no_bf16 = 0, bf16_rows = 0;
  for (int i = 0; i < count; i++) {
    kept_all += bench_row_selected(&rows[i], &all);
    kept_no_bf16 += bench_row_selected(&rows[i], &no_bf16);
    bf16_rows += rows[i].precision == GPU_PRECISION_BF16;
    if (!bench_row_selected(&rows[i], &bf16_gelu)) continue;
    kept++;
    ck_assert_int_eq(rows[i].precision, GPU_PRECISION_BF16);
    ck_assert_int_eq(rows[i].activation, LT_ACTIVATION_GELU);
  }
  ck_assert_int_eq(kept_all, count);
  ck_assert_int_gt(bf16_rows, 0);
  ck_assert_int_eq(kept_no_bf16, count - bf16_rows);
  ck_assert(!bench_precision_selected(&no_bf16, GPU_PRECISION_BF16));
  ck_assert(bench_precision_selected(&no_bf16, GPU_PRECISION_FP16));
  ck_assert_int_eq(kept, 3 * 3); /* fused, unfused, auto per network */
  /* A GPU where cuBLASLt refuses a GELU epilogue in BF16 (the start-up
   * probe): only the BF16 GELU rows are skipped, not the BF16 ReLU rows,
   * nor the GELU rows of another precision. */
  bench_selection no_bf16_gelu = {.precision = -1, .activation = -1};
  no_bf16_gelu.refused_activation[GPU_PRECISION_BF16][LT_ACTIVATION_GELU] = 1;
  int bf16_gelu_rows = 0, kept_no_bf16_gelu = 0;
  for (int i = 0; i < count; i++) {
    int gelu_bf16 = rows[i].precision == GPU_PRECISION_BF16 &&
                    rows[i].activation == LT_ACTIVATION_GELU;
    bf16_gelu_rows += gelu_bf16;
    kept_no_bf16_gelu += bench_row_selected(&rows[i], &no_bf16_gelu);
    ck_assert_int_eq(bench_row_selected(&rows[i], &no_bf16_gelu), !gelu_bf16);
  }
  ck_assert_int_gt(bf16_gelu_rows, 0);
  ck_assert_int_eq(kept_no_bf16_gelu, count - bf16_gelu_rows);
  ck_assert(bench_precision_selected(&no_bf16_gelu, GPU_PRECISION_BF16));
  ck_assert(bench_activation_selected(&no_bf16_gelu, GPU_PRECISION_BF16,
                                      LT_ACTIVATION_RELU));
  ck_assert(!bench_activation_selected(&no_bf16_gelu, GPU_PRECISION_BF16,
                                       LT_ACTIVATION_GELU));
  ck_assert(bench_activation_selected(&no_bf16_gelu, GPU_PRECISION_FP32,
                                      LT_ACTIVATION_GELU));
  ck_assert(!bench_activation_selected(&bf16_gelu, GPU_PRECISION_BF16,
                                       LT_ACTIVATION_RELU));
  char label[32];
  bench_row_label(label, sizeof label, &rows[16]); /* BF16 padded, unfused */
  ck_assert_str_eq(label, "unfused+pad");
  bench_row_label(label, sizeof label, &rows[22]); /* FP32 GELU auto */
  ck_assert_str_eq(label, "auto+gelu");
  bench_row_label(label, sizeof label, &rows[18]); /* FP32, no graphs */
  ck_assert_str_eq(label, "fused");
  ck_assert_int_eq(rows[18].graphs, 0);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("bench_rows");
  TCase *tc = tcase_create("bench_rows");
  tcase_add_test(tc, selection_and_labels);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 0);
}
