/* test_bench_rows.c: which of mnist_bench's rows (bench_rows.h) a run
 * keeps: all of them, only those of one precision and activation, none of a
 * precision the GPU refuses (gpu_precision_check), and only the rows of an
 * activation refused in one precision (the start-up probe) left out, not
 * that precision's other rows nor that activation's in other precisions;
 * and the rows' labels (+pad, +gelu); the twin groups and the order their
 * rows run in per round (each order a permutation; for three rows, in any
 * five rounds in a row, none first or right after another row more than
 * twice). The rows themselves against the
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

/* Every twin group is its fused row, then the rows whose twin it is. */
START_TEST(twin_groups) {
  bench_row rows[BENCH_MAX_ROWS];
  int count = bench_rows_build(rows), groups = 0, threes = 0;
  for (int g = 0; g < count; g += bench_group_size(rows, count, g)) {
    int size = bench_group_size(rows, count, g);
    groups++;
    threes += size == 3;
    ck_assert_int_eq(rows[g].mode, MLP_MODE_FUSED);
    ck_assert_int_eq(rows[g].twin, g);
    for (int i = 1; i < size; i++)
      ck_assert_int_eq(rows[g + i].twin, g);
    ck_assert(size == 2 || size == 3);
    /* A run keeps or leaves out a group whole (bench_group_order's balance
     * needs it): its rows share network, precision and activation. */
    bench_selection bf16_gelu = {.precision = GPU_PRECISION_BF16,
                                 .activation = LT_ACTIVATION_GELU};
    bench_selection no_gelu = {.precision = -1, .activation = -1};
    no_gelu.refused_activation[rows[g].precision][LT_ACTIVATION_GELU] = 1;
    for (int i = 1; i < size; i++) {
      ck_assert_int_eq(bench_row_selected(&rows[g + i], &bf16_gelu),
                       bench_row_selected(&rows[g], &bf16_gelu));
      ck_assert_int_eq(bench_row_selected(&rows[g + i], &no_gelu),
                       bench_row_selected(&rows[g], &no_gelu));
    }
  }
  /* Per network: 5 precisions ReLU, BF16 padded, 5 GELU (three rows
   * each), FP32 host-launched (two). */
  ck_assert_int_eq(threes, 3 * 11);
  ck_assert_int_eq(groups, 3 * 12);
}
END_TEST

/* Each round's order is a permutation; round 0 is the rows' order; for
 * three rows, over any five rounds in a row, each row is first at most
 * twice and right after each other row at most twice. */
START_TEST(round_orders_are_balanced) {
  for (int size = 1; size <= 3; size++)
    for (int round = 0; round < 13; round++) {
      int seen[3] = {0, 0, 0};
      for (int i = 0; i < size; i++) {
        int v = bench_group_order(size, round, i);
        ck_assert(v >= 0 && v < size);
        seen[v]++;
        if (round == 0) ck_assert_int_eq(v, i);
      }
      for (int v = 0; v < size; v++)
        ck_assert_int_eq(seen[v], 1);
      if (size == 2 && round > 0) /* two rows alternate */
        ck_assert_int_ne(bench_group_order(2, round, 0),
                         bench_group_order(2, round + 1, 0));
    }
  for (int start = 1; start <= 12; start++) {
    int first[3] = {0, 0, 0}, after[3][3] = {{0}};
    for (int round = start; round < start + 5; round++) {
      first[bench_group_order(3, round, 0)]++;
      for (int i = 1; i < 3; i++)
        after[bench_group_order(3, round, i - 1)]
             [bench_group_order(3, round, i)]++;
    }
    for (int a = 0; a < 3; a++) {
      ck_assert_int_le(first[a], 2);
      for (int b = 0; b < 3; b++)
        ck_assert_int_le(after[a][b], 2);
    }
  }
}
END_TEST

/* Over a group's passes each row is made once in each place, so no row is
 * always the one made first; pass 0 makes them in the rows' order. */
START_TEST(creation_orders_put_each_row_first_once) {
  for (int size = 1; size <= BENCH_MAX_GROUP; size++) {
    int placed[BENCH_MAX_GROUP][BENCH_MAX_GROUP] = {{0}};
    for (int pass = 0; pass < size; pass++) {
      int seen[BENCH_MAX_GROUP] = {0};
      for (int i = 0; i < size; i++) {
        int v = bench_creation_order(size, pass, i);
        ck_assert(v >= 0 && v < size);
        seen[v]++;
        placed[v][i]++;
        if (pass == 0) ck_assert_int_eq(v, i);
      }
      for (int v = 0; v < size; v++)
        ck_assert_int_eq(seen[v], 1);
    }
    for (int v = 0; v < size; v++)
      for (int i = 0; i < size; i++)
        ck_assert_int_eq(placed[v][i], 1);
  }
  bench_row rows[BENCH_MAX_ROWS];
  int count = bench_rows_build(rows);
  for (int g = 0; g < count; g += bench_group_size(rows, count, g))
    ck_assert_int_le(bench_group_size(rows, count, g), BENCH_MAX_GROUP);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("bench_rows");
  TCase *tc = tcase_create("bench_rows");
  tcase_add_test(tc, selection_and_labels);
  tcase_add_test(tc, twin_groups);
  tcase_add_test(tc, round_orders_are_balanced);
  tcase_add_test(tc, creation_orders_put_each_row_first_once);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 0);
}
