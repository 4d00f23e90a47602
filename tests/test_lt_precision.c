/* test_lt_precision.c: every epilogue in BF16 and FP16, fused, unfused and
 * auto, against the plain-C oracle on random data at odd sizes (the sizes
 * of test_lt_epilogues), with leading dimensions padded to 8 as the layers
 * use them. Inputs are rounded to the storage type on the host, so the
 * oracle computes in double from exactly the values the GPU reads; the
 * bound, derived from the unit roundoff of the type, is written out in
 * test_call_check.c. Also: mask padding bytes are never written, and a
 * bias gradient overwrites what was there. GPU only: skips (77) without
 * one. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/lt_auto.h"
#include "gpu/lt_matmul.h"
#include "gpu/lt_unfused.h"
#include "test_call_check.h"
#include "test_gpu.h"
#include "test_shapes.h"
#include "test_types.h"
#include "test_util.h"

static uint64_t seed;
static gpu_context *ctx;

enum { EPILOGUES = 5, TYPES = 2, VARIANTS = 3 };
static const lt_dtype types[TYPES] = {LT_DTYPE_BF16, LT_DTYPE_F16};
static const char *variant_names[VARIANTS] = {"fused", "unfused", "auto"};

static float *random_rounded(test_rng *rng, lt_dtype type, size_t count) {
  float *x = malloc((count + 1) * sizeof(float));
  for (size_t i = 0; i < count; i++)
    x[i] = test_round(type, (float)test_rng_uniform(rng, -1, 1));
  return x;
}

static double *widen(const float *x, size_t count) {
  double *y = malloc((count + 1) * sizeof(double));
  for (size_t i = 0; i < count; i++)
    y[i] = x[i];
  return y;
}

START_TEST(epilogue_matches_oracle_in_16_bit) {
  int variant = _i % VARIANTS;
  lt_dtype type = types[_i / VARIANTS % TYPES];
  lt_epilogue epilogue = (lt_epilogue)(_i / VARIANTS / TYPES % EPILOGUES);
  test_shape sz = test_shapes[_i / VARIANTS / TYPES / EPILOGUES];
  int m = sz.m, n = sz.n, k = sz.k;
  int ta = epilogue == LT_EPILOGUE_BIAS ||
           epilogue == LT_EPILOGUE_RELU_AUX_BIAS ||
           (epilogue == LT_EPILOGUE_DEFAULT && (_i & 1));
  int tb = epilogue == LT_EPILOGUE_BGRADB;
  int has_aux = lt_epilogue_uses_aux(epilogue);
  int bias_in = lt_epilogue_reads_bias(epilogue);
  int bias_out = lt_epilogue_writes_bias_grad(epilogue);
  lt_shape s = {.type = type,
                .m = m,
                .n = n,
                .k = k,
                .transa = ta,
                .transb = tb,
                .lda = lt_ld(ta ? k : m),
                .ldb = lt_ld(tb ? n : k),
                .ldd = lt_ld(m),
                .epilogue = epilogue,
                .aux_ld = has_aux ? lt_aux_ld(m) : 0};
  size_t a_count = (size_t)s.lda * (ta ? m : k);
  size_t b_count = (size_t)s.ldb * (tb ? k : n);
  size_t d_count = (size_t)s.ldd * n;
  int bias_len = epilogue == LT_EPILOGUE_BGRADB ? n : m;
  size_t aux_bytes = lt_aux_bytes(m, n);
  test_rng rng;
  test_rng_init(&rng, seed + (uint64_t)_i);
  float *h_a = random_rounded(&rng, type, a_count);
  float *h_b = random_rounded(&rng, type, b_count);
  float *h_bias = random_rounded(&rng, type, (size_t)bias_len);
  uint8_t *h_aux = malloc(aux_bytes);
  for (size_t i = 0; i < aux_bytes; i++)
    h_aux[i] = epilogue == LT_EPILOGUE_DRELU_BGRAD
                   ? (uint8_t)test_rng_next(&rng)
                   : 0xA5;
  void *d_a = test_upload_as(type, h_a, a_count);
  void *d_b = test_upload_as(type, h_b, b_count);
  void *d_d = test_upload(NULL, d_count * lt_dtype_size(type));
  test_fill_device(d_d, 0xFF, d_count * lt_dtype_size(type)); /* NaN */
  void *d_bias = test_upload_as(type, h_bias, (size_t)bias_len);
  if (bias_out) /* NaN: it must be overwritten */
    test_fill_device(d_bias, 0xFF, (size_t)bias_len * lt_dtype_size(type));
  uint8_t *d_aux = test_upload(h_aux, aux_bytes);
  lt_matmul_call call = {.shape = s,
                         .d_a = d_a,
                         .d_b = d_b,
                         .d_d = d_d,
                         .d_bias = bias_in ? d_bias : NULL,
                         .d_bias_grad = bias_out ? d_bias : NULL,
                         .d_aux = has_aux ? d_aux : NULL};
  int status = variant == 0   ? lt_matmul(ctx, &call)
               : variant == 1 ? lt_matmul_unfused(ctx, &call)
                              : lt_matmul_auto_on(ctx, GPU_LANE_MAIN, &call);
  ck_assert_msg(status == 0, "%s %s: %s", variant_names[variant],
                lt_epilogue_name(epilogue), lt_last_error(ctx));
  double *got_d = test_download_as(type, d_d, d_count);
  double *got_bias = test_download_as(type, d_bias, (size_t)bias_len);
  uint8_t *got_aux = malloc(aux_bytes);
  test_download(got_aux, d_aux, aux_bytes);
  double *a = widen(h_a, a_count), *b = widen(h_b, b_count);
  double *bias = widen(h_bias, (size_t)bias_len);
  char label[96];
  snprintf(label, sizeof label, "case %d %s", _i, variant_names[variant]);
  test_call_result r = {
      .shape = s,
      .a = a,
      .b = b,
      .bias = bias_in ? bias : NULL,
      .aux_in = epilogue == LT_EPILOGUE_DRELU_BGRAD ? h_aux : NULL,
      .d = got_d,
      .bias_grad = bias_out ? got_bias : NULL,
      .aux_out = epilogue == LT_EPILOGUE_RELU_AUX_BIAS ? got_aux : NULL};
  int skipped = test_check_call(&r, label);
  ck_assert_msg(skipped <= m * n / 20 + 1, "%s: %d of %d mask bits near 0",
                label, skipped, m * n);
  if (epilogue == LT_EPILOGUE_RELU_AUX_BIAS) {
    /* Whole bytes past row m in every column are never written. */
    int used = (m + 7) / 8, per_column = s.aux_ld / 8;
    for (int j = 0; j < n; j++)
      for (int byte = used; byte < per_column; byte++)
        ck_assert_msg(got_aux[(size_t)j * per_column + byte] == 0xA5,
                      "%s m=%d: padding byte %d of column %d written", label, m,
                      byte, j);
  }
  free(h_a);
  free(h_b);
  free(h_bias);
  free(h_aux);
  free(got_d);
  free(got_bias);
  free(got_aux);
  free(a);
  free(b);
  free(bias);
  test_free(d_a);
  test_free(d_b);
  test_free(d_d);
  test_free(d_bias);
  test_free(d_aux);
}
END_TEST

int main(void) {
  test_require_gpu("lt_precision");
  seed = test_seed("lt_precision");
  ctx = test_context(GPU_AUTOTUNE_EXACT, GPU_PRECISION_BF16);
  if (!ctx) {
    printf("lt_precision: could not create the GPU context (see above)\n");
    return 1;
  }
  Suite *suite = suite_create("lt_precision");
  TCase *tc = tcase_create("precision");
  tcase_set_timeout(tc, 900);
  tcase_add_loop_test(tc, epilogue_matches_oracle_in_16_bit, 0,
                      TEST_SHAPES * EPILOGUES * TYPES * VARIANTS);
  suite_add_tcase(suite, tc);
  int status = test_run_suite(suite, 1);
  gpu_context_destroy(ctx);
  return status;
}
