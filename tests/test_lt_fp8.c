/* test_lt_fp8.c: the wrapper's FP8 GEMMs (lt/lt_matmul.h) on the GPU, one
 * call at a time (the FP8 step they serve: test_mlp_fp8.c and
 * test_mlp_fp8_train.c):
 *   1. FP8 GEMMs on codes of small integers give exact results, bit for
 *      bit, fast accumulation on and off;
 *   2. the wrapper refuses malformed FP8 calls before cuBLASLt sees them,
 *      and every FP8 shape its rules admit runs.
 * GPU only: skips (77) without one, or on a GPU without FP8 (below 8.9). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layers/fp8.h"
#include "layers/oracle.h"
#include "lt/lt_matmul.h"
#include "tests/test_gpu.h"
#include "tests/test_types.h"
#include "tests/test_util.h"

static uint64_t seed;

static gpu_context *fp8_context(void) {
  gpu_context *ctx = test_context(GPU_AUTOTUNE_EXACT, GPU_PRECISION_FP8);
  ck_assert_ptr_nonnull(ctx);
  return ctx;
}

/* FP8 GEMMs exactly: codes of small integers (-2 .. 2, exact in E4M3 and
 * E5M2), power-of-two scales, small integer biases. Every product and
 * every partial sum is an integer below 2^12, exact in any accumulator of
 * 14 bits or more, so D is the exact result rounded once to BF16, bit for
 * bit (the epilogue's ReLU and mask exactly too), with fast accumulation
 * on and off: a wrong index, a missing term or a wrong scale shows. The
 * step's own shapes: the forward of 784 -> 112 and 112 -> 16, a data
 * gradient and a weight gradient, at batch 96. */
START_TEST(fp8_gemms_are_exact_on_small_integers) {
  enum { N = 96 };
  lt_shape shapes[4] = {
      lt_shape_forward_fp8(784, 112, N, 1, LT_FP8_E4M3, LT_FP8_E4M3),
      lt_shape_forward_fp8(112, 16, N, 0, LT_FP8_E4M3, LT_FP8_E4M3),
      lt_shape_backward_data_fp8(112, 16, N, LT_FP8_E4M3, LT_FP8_E5M2),
      lt_shape_backward_weights_fp8(784, 112, N, LT_FP8_E4M3, LT_FP8_E5M2)};
  gpu_context *ctx = fp8_context();
  test_rng rng;
  test_rng_init(&rng, seed + 11);
  const float scales[2] = {0.5f, 2.0f}; /* A's scale_inv, B's */
  float *d_scales = test_upload(NULL, 64);
  test_copy_to_device(d_scales, &scales[0], 4);
  test_copy_to_device((char *)d_scales + 16, &scales[1], 4);
  for (int c = 0; c < 8; c++) {
    lt_shape s = shapes[c % 4];
    s.fast_accum = c / 4;
    int a_cols = s.m, b_cols = s.n; /* TN: A (k, m), B (k, n) stored */
    size_t a_count = (size_t)s.lda * a_cols, b_count = (size_t)s.ldb * b_cols;
    uint8_t *a = calloc(a_count, 1), *b = calloc(b_count, 1);
    float *av = calloc(a_count, sizeof(float)),
          *bv = calloc(b_count, sizeof(float));
    fp8_format fa = FP8_FORMAT_E4M3;
    fp8_format fb = s.b_fp8 == LT_FP8_E5M2 ? FP8_FORMAT_E5M2 : FP8_FORMAT_E4M3;
    for (int j = 0; j < a_cols; j++)
      for (int p = 0; p < s.k; p++) {
        av[(size_t)j * s.lda + p] = (float)((int)(test_rng_next(&rng) % 5) - 2);
        a[(size_t)j * s.lda + p] = fp8_encode(av[(size_t)j * s.lda + p], fa);
      }
    for (int j = 0; j < b_cols; j++)
      for (int p = 0; p < s.k; p++) {
        bv[(size_t)j * s.ldb + p] = (float)((int)(test_rng_next(&rng) % 5) - 2);
        b[(size_t)j * s.ldb + p] = fp8_encode(bv[(size_t)j * s.ldb + p], fb);
      }
    float bias[112];
    for (int i = 0; i < 112; i++)
      bias[i] = (float)((int)(test_rng_next(&rng) % 7) - 3);
    lt_matmul_call call = {.shape = s,
                           .d_a = test_upload(a, a_count),
                           .d_b = test_upload(b, b_count),
                           .d_d = test_upload(NULL, (size_t)s.ldd * s.n * 2),
                           .d_a_scale = d_scales,
                           .d_b_scale = (const float *)((char *)d_scales + 16)};
    if (lt_epilogue_reads_bias(s.epilogue))
      call.d_bias = test_upload_as(LT_DTYPE_BF16, bias, (size_t)s.m);
    if (lt_epilogue_uses_aux(s.epilogue))
      call.d_aux = test_upload(NULL, lt_call_aux_bytes(&s));
    ck_assert_msg(lt_matmul(ctx, &call) == 0, "case %d: %s", c,
                  lt_last_error(ctx));
    double *d = test_download_as(LT_DTYPE_BF16, call.d_d, (size_t)s.ldd * s.n);
    uint8_t *mask = NULL;
    if (call.d_aux) {
      mask = malloc(lt_call_aux_bytes(&s));
      test_download(mask, call.d_aux, lt_call_aux_bytes(&s));
    }
    for (int j = 0; j < s.n; j++)
      for (int i = 0; i < s.m; i++) {
        long exact = 0;
        for (int p = 0; p < s.k; p++)
          exact +=
              (long)av[(size_t)i * s.lda + p] * (long)bv[(size_t)j * s.ldb + p];
        float z = (float)exact * scales[0] * scales[1] +
                  (call.d_bias ? bias[i] : 0.0f);
        int bit = z >= 0.0f;
        float want = test_round(
            LT_DTYPE_BF16,
            s.epilogue == LT_EPILOGUE_RELU_AUX_BIAS && !bit ? 0.0f : z);
        ck_assert_msg(d[(size_t)j * s.ldd + i] == want,
                      "case %d (%s, fast %d) D(%d,%d) = %g, exact %g", c,
                      lt_epilogue_name(s.epilogue), s.fast_accum, i, j,
                      d[(size_t)j * s.ldd + i], want);
        if (mask) ck_assert_int_eq(oracle_mask_bit(mask, s.aux_ld, i, j), bit);
      }
    free(d);
    free(mask);
    free(a);
    free(b);
    free(av);
    free(bv);
    test_free((void *)call.d_a);
    test_free((void *)call.d_b);
    test_free(call.d_d);
    test_free((void *)call.d_bias);
    test_free(call.d_aux);
  }
  test_free(d_scales);
  gpu_context_destroy(ctx);
}
END_TEST

/* The wrapper refuses malformed FP8 calls itself, naming the rule: no
 * scale pointers, NN, a scale pointer 4 bytes off 16, a scale pointer on
 * a BF16 call. */
START_TEST(malformed_fp8_calls_are_refused) {
  gpu_context *ctx = fp8_context();
  uint8_t *d = test_upload(NULL, 1 << 16);
  float *scale = test_upload(NULL, 64);
  lt_matmul_call ok = {
      .shape = lt_shape_forward_fp8(64, 64, 64, 0, LT_FP8_E4M3, LT_FP8_E4M3),
      .d_a = d,
      .d_b = d + 4096,
      .d_d = d + 8192,
      .d_bias = d + 16384,
      .d_a_scale = scale,
      .d_b_scale = scale + 4};
  ck_assert_int_eq(lt_matmul(ctx, &ok), 0);
  lt_matmul_call c = ok;
  c.d_b_scale = NULL;
  ck_assert_int_eq(lt_matmul(ctx, &c), -1);
  ck_assert_ptr_nonnull(strstr(lt_last_error(ctx), "both scale pointers"));
  c = ok;
  c.shape.transa = 0;
  ck_assert_int_eq(lt_matmul(ctx, &c), -1);
  ck_assert_ptr_nonnull(strstr(lt_last_error(ctx), "TN format"));
  c = ok;
  c.d_b_scale = scale + 1;
  ck_assert_int_eq(lt_matmul(ctx, &c), -1);
  ck_assert_ptr_nonnull(strstr(lt_last_error(ctx), "16-byte aligned"));
  c = ok;
  c.shape.a_fp8 = c.shape.b_fp8 = LT_FP8_NONE;
  ck_assert_int_eq(lt_matmul(ctx, &c), -1);
  ck_assert_ptr_nonnull(strstr(lt_last_error(ctx), "no scale pointers"));
  test_sync(ctx);
  test_free(d);
  test_free(scale);
  gpu_context_destroy(ctx);
}
END_TEST

/* Every FP8 shape the rules admit (lt/lt_shape.h: m and k multiples of
 * 16, n free) is planned and runs; the products are checked by the step
 * test above. n = 37 and 8 included: the batch is n. */
START_TEST(fp8_shapes_the_rules_admit_run) {
  static const int shapes[][3] = {
      {64, 64, 64},   {64, 37, 64},   {64, 8, 64},     {16, 1, 16},
      {112, 96, 784}, {16, 256, 112}, {784, 112, 2656}};
  gpu_context *ctx = fp8_context();
  uint8_t *d = test_upload(NULL, 8 << 20);
  test_fill_device(d, 0, 8 << 20);
  float one = 1.0f;
  float *scale = test_upload(&one, sizeof one);
  for (int i = 0; i < (int)(sizeof shapes / sizeof shapes[0]); i++) {
    int m = shapes[i][0], n = shapes[i][1], k = shapes[i][2];
    lt_matmul_call c = {
        .shape = lt_shape_forward_fp8(k, m, n, 0, LT_FP8_E4M3, LT_FP8_E5M2),
        .d_a = d,
        .d_b = d + (2 << 20),
        .d_d = d + (4 << 20),
        .d_bias = d + (7 << 20),
        .d_a_scale = scale,
        .d_b_scale = scale};
    char why[512];
    ck_assert_int_eq(lt_shape_check(&c.shape, why, sizeof why), 0);
    ck_assert_msg(lt_matmul(ctx, &c) == 0, "m=%d n=%d k=%d: %s", m, n, k,
                  lt_last_error(ctx));
    c.shape.epilogue = LT_EPILOGUE_DEFAULT;
    c.d_bias = NULL;
    c.shape.fast_accum = 1;
    ck_assert_msg(lt_matmul(ctx, &c) == 0, "m=%d n=%d k=%d fast: %s", m, n, k,
                  lt_last_error(ctx));
  }
  test_sync(ctx);
  test_free(d);
  test_free(scale);
  gpu_context_destroy(ctx);
}
END_TEST

int main(void) {
  test_require_fp8("lt_fp8");
  seed = test_seed("lt_fp8");
  Suite *suite = suite_create("lt_fp8");
  TCase *tc = tcase_create("fp8");
  tcase_set_timeout(tc, 900);
  tcase_add_test(tc, fp8_gemms_are_exact_on_small_integers);
  tcase_add_test(tc, malformed_fp8_calls_are_refused);
  tcase_add_test(tc, fp8_shapes_the_rules_admit_run);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 1);
}
