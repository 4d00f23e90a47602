/* test_lt_precision.c: every epilogue, the GELU ones and the alternatives
 * (DRELU, DGELU, BGRADA: docs/backprop.md section 11) included, in FP32,
 * BF16 and FP16, fused, unfused and auto, against the plain-C oracle on random
 * data at odd sizes (the sizes of test_lt_epilogues), with leading dimensions
 * padded to 8 as the layers use them. Inputs are rounded to the storage type on
 * the host, so the oracle computes in double from exactly the values the GPU
 * reads; the bound, derived from the unit roundoff of the type, is written out
 * in test_call_check.c. Also: mask padding bytes are never written, and a bias
 * gradient overwrites what was there. GPU only: skips (77) without one. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layers/oracle.h"
#include "lt/lt_auto.h"
#include "lt/lt_matmul.h"
#include "lt/lt_unfused.h"
#include "tests/test_call_check.h"
#include "tests/test_gpu.h"
#include "tests/test_shapes.h"
#include "tests/test_types.h"
#include "tests/test_util.h"

static uint64_t seed;
static gpu_context *ctx;

/* Every epilogue, DEFAULT .. BGRADA (the alternatives included). */
enum { EPILOGUES = LT_EPILOGUE_COUNT, TYPES = 3, VARIANTS = 3 };
static const lt_dtype types[TYPES] = {LT_DTYPE_F32, LT_DTYPE_BF16,
                                      LT_DTYPE_F16};
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

/* Inputs: uniform in [-1, 1) rounded to the type, or (exact) integers in
 * {-1, 0, 1}. */
static float *inputs(test_rng *rng, lt_dtype type, size_t count, int exact) {
  float *x = random_rounded(rng, type, count);
  if (exact)
    for (size_t i = 0; i < count; i++)
      x[i] = (float)((int)(test_rng_next(rng) % 3) - 1);
  return x;
}

/* With integer inputs every result is exact (|values| <= 3 k and sums of
 * at most n of them stay integers, or halves after GELU'(0) = 1/2, far
 * below 2^8): D, the bias gradient and the GELU input must equal the
 * oracle's bit for bit; GELU's output is checked by its bound only. */
static void check_exact(const test_call_result *r, const char *label) {
  const lt_shape *s = &r->shape;
  size_t d_count = (size_t)s->ldd * s->n;
  double *d = calloc(d_count, sizeof(double));
  double *db = calloc((size_t)(s->m > s->n ? s->m : s->n), sizeof(double));
  double *z = calloc((size_t)s->aux_ld * s->n + 1, sizeof(double));
  uint8_t *mask = calloc(lt_call_aux_bytes(s) + 1, 1);
  if (r->aux_in) memcpy(mask, r->aux_in, lt_call_aux_bytes(s));
  oracle_call want = {.shape = *s,
                      .a = r->a,
                      .b = r->b,
                      .d = d,
                      .bias = r->bias,
                      .bias_grad = db,
                      .aux = mask,
                      .gelu_input = r->gelu_in ? (double *)r->gelu_in : z};
  oracle_matmul(&want);
  int gelu_fwd = s->epilogue == LT_EPILOGUE_GELU_AUX_BIAS;
  for (int j = 0; j < s->n; j++)
    for (int i = 0; i < s->m; i++) {
      size_t at = (size_t)j * s->ldd + i;
      if (!gelu_fwd)
        ck_assert_msg(r->d[at] == d[at], "%s exact: D(%d,%d) = %g, oracle %g",
                      label, i, j, r->d[at], d[at]);
      else
        ck_assert_msg(r->gelu_out[(size_t)j * s->aux_ld + i] ==
                          z[(size_t)j * s->aux_ld + i],
                      "%s exact: GELU input (%d,%d)", label, i, j);
    }
  for (int i = 0; i < lt_bias_grad_length(s); i++)
    ck_assert_msg(r->bias_grad[i] == db[i], "%s exact: db[%d] = %g, oracle %g",
                  label, i, r->bias_grad[i], db[i]);
  if (s->epilogue == LT_EPILOGUE_RELU_AUX_BIAS) /* z = 0 included */
    for (int j = 0; j < s->n; j++)
      for (int i = 0; i < s->m; i++)
        ck_assert_msg(oracle_mask_bit(r->aux_out, s->aux_ld, i, j) ==
                          oracle_mask_bit(mask, s->aux_ld, i, j),
                      "%s exact: mask bit (%d,%d)", label, i, j);
  free(d);
  free(db);
  free(z);
  free(mask);
}

static void check_case(int index, int variant, lt_dtype type,
                       lt_epilogue epilogue, test_shape sz, int exact) {
  int _i = index;
  int m = sz.m, n = sz.n, k = sz.k;
  /* DEFAULT: all four transposes over the shapes. */
  int ta = lt_epilogue_reads_bias(epilogue) ||
           (epilogue == LT_EPILOGUE_DEFAULT && (_i / VARIANTS / TYPES) & 1);
  int tb = epilogue == LT_EPILOGUE_BGRADB ||
           (epilogue == LT_EPILOGUE_DEFAULT && (_i / VARIANTS / TYPES) & 2);
  int has_aux = lt_epilogue_uses_aux(epilogue);
  int bias_in = lt_epilogue_reads_bias(epilogue);
  int bias_out = lt_epilogue_writes_bias_grad(epilogue);
  /* The backward epilogues read a random mask or GELU input. */
  int relu_bwd =
      epilogue == LT_EPILOGUE_DRELU_BGRAD || epilogue == LT_EPILOGUE_DRELU;
  int gelu_bwd =
      epilogue == LT_EPILOGUE_DGELU_BGRAD || epilogue == LT_EPILOGUE_DGELU;
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
                .aux_ld = !has_aux                            ? 0
                          : lt_epilogue_aux_is_mask(epilogue) ? lt_aux_ld(m)
                                                              : lt_ld(m)};
  size_t a_count = (size_t)s.lda * (ta ? m : k);
  size_t b_count = (size_t)s.ldb * (tb ? k : n);
  size_t d_count = (size_t)s.ldd * n;
  int bias_len = epilogue == LT_EPILOGUE_BGRADB ? n : m;
  /* The mask's bytes, or the GELU input's elements (aux_ld, n). */
  int gelu = has_aux && !lt_epilogue_aux_is_mask(epilogue);
  size_t aux_bytes = has_aux ? lt_call_aux_bytes(&s) : lt_aux_bytes(m, n);
  size_t gelu_count = gelu ? (size_t)s.aux_ld * n : 0;
  test_rng rng;
  test_rng_init(&rng, seed + (uint64_t)_i);
  float *h_a = inputs(&rng, type, a_count, exact);
  float *h_b = inputs(&rng, type, b_count, exact);
  float *h_bias = inputs(&rng, type, (size_t)bias_len, exact);
  uint8_t *h_aux = malloc(aux_bytes);
  for (size_t i = 0; i < aux_bytes; i++)
    h_aux[i] = relu_bwd ? (uint8_t)test_rng_next(&rng) : 0xA5;
  void *d_a = test_upload_as(type, h_a, a_count);
  void *d_b = test_upload_as(type, h_b, b_count);
  void *d_d = test_upload(NULL, d_count * lt_dtype_size(type));
  test_fill_device(d_d, 0xFF, d_count * lt_dtype_size(type)); /* NaN */
  void *d_bias = test_upload_as(type, h_bias, (size_t)bias_len);
  if (bias_out) /* NaN: it must be overwritten */
    test_fill_device(d_bias, 0xFF, (size_t)bias_len * lt_dtype_size(type));
  /* GELU input: read by DGELU(_BGRAD) (random in [-3, 3], rounded), written
   * by GELU_AUX_BIAS (poisoned with NaN first). */
  float *h_gelu = random_rounded(&rng, type, gelu_count);
  for (size_t i = 0; i < gelu_count; i++)
    h_gelu[i] = exact ? 0.0f : test_round(type, 3.0f * h_gelu[i]);
  uint8_t *d_aux = gelu ? test_upload_as(type, h_gelu, gelu_count)
                        : test_upload(h_aux, aux_bytes);
  if (epilogue == LT_EPILOGUE_GELU_AUX_BIAS)
    test_fill_device(d_aux, 0xFF, aux_bytes);
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
  double *gelu_in = widen(h_gelu, gelu_count);
  double *gelu_out = gelu ? test_download_as(type, d_aux, gelu_count) : NULL;
  double *a = widen(h_a, a_count), *b = widen(h_b, b_count);
  double *bias = widen(h_bias, (size_t)bias_len);
  char label[96];
  snprintf(label, sizeof label, "case %d %s", _i, variant_names[variant]);
  test_call_result r = {
      .shape = s,
      .a = a,
      .b = b,
      .bias = bias_in ? bias : NULL,
      .aux_in = relu_bwd ? h_aux : NULL,
      .d = got_d,
      .bias_grad = bias_out ? got_bias : NULL,
      .aux_out = epilogue == LT_EPILOGUE_RELU_AUX_BIAS ? got_aux : NULL,
      .gelu_in = gelu_bwd ? gelu_in : NULL,
      .gelu_out = epilogue == LT_EPILOGUE_GELU_AUX_BIAS ? gelu_out : NULL};
  int skipped = test_check_call(&r, label);
  if (exact) check_exact(&r, label);
  ck_assert_msg(exact || skipped <= m * n / 20 + 1,
                "%s: %d of %d mask bits near 0", label, skipped, m * n);
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
  free(h_gelu);
  free(gelu_in);
  free(gelu_out);
  free(a);
  free(b);
  free(bias);
  test_free(d_a);
  test_free(d_b);
  test_free(d_d);
  test_free(d_bias);
  test_free(d_aux);
}

START_TEST(epilogue_matches_oracle_per_type) {
  check_case(_i, _i % VARIANTS, types[_i / VARIANTS % TYPES],
             (lt_epilogue)(_i / VARIANTS / TYPES % EPILOGUES),
             test_shapes[_i / VARIANTS / TYPES / EPILOGUES], 0);
}
END_TEST

/* Small integers at m = 129, n = 3, k = 7 (and m = 7, n = 96 for the
 * longer bias-gradient sums): every result exact, compared bit for bit. */
START_TEST(epilogue_is_exact_on_small_integers) {
  const test_shape sizes[2] = {{129, 3, 7}, {7, 96, 3}};
  check_case(_i, _i % VARIANTS, types[_i / VARIANTS % TYPES],
             (lt_epilogue)(_i / VARIANTS / TYPES % EPILOGUES),
             sizes[_i / VARIANTS / TYPES / EPILOGUES], 1);
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
  tcase_add_loop_test(tc, epilogue_is_exact_on_small_integers, 0,
                      2 * EPILOGUES * TYPES * VARIANTS);
  tcase_add_loop_test(tc, epilogue_matches_oracle_per_type, 0,
                      TEST_SHAPES * EPILOGUES * TYPES * VARIANTS);
  suite_add_tcase(suite, tc);
  int status = test_run_suite(suite, 1);
  gpu_context_destroy(ctx);
  return status;
}
