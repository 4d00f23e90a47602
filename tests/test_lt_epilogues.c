/* test_lt_epilogues.c: every ReLU epilogue of the cuBLASLt wrapper (the
 * step's and the alternatives DRELU and BGRADA), fused (autotuned and
 * heuristic-first) and unfused, against the plain-C oracle
 * on random data at odd sizes; the ReLU bit-mask layout, its >= 0 rule and
 * its padding; bias gradients overwrite what was there. (The wrapper's
 * rules and plans: test_lt_rules.c.) GPU only: skips (77) without one. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layers/oracle.h"
#include "lt/lt_matmul.h"
#include "lt/lt_unfused.h"
#include "tests/test_gpu.h"
#include "tests/test_shapes.h"
#include "tests/test_util.h"

/* FP32 unit roundoff. A sum of k products in any order is within
 * k * u * sum|a_i b_i| of the exact value (Higham, Accuracy and Stability,
 * 3.1); we allow 2 (k + 2) u * (sum|a b| + |bias|), which covers the bias
 * add and the rounding of the result. A wrong index, a missing term or a
 * wrong mask is off by O(|a b|), hundreds of times more at these sizes. */
#define UNIT_ROUNDOFF (1.0 / 16777216.0)

static uint64_t seed;
/* One context per autotune mode; the unfused variant uses the exact one. */
static gpu_context *ctx_exact, *ctx_fast, *ctx_off;

/* The ReLU step's epilogues and the alternatives that fit FP32 bounds
 * (DRELU, BGRADA; DGELU, whose GELU' cuBLASLt evaluates approximately, is
 * held by test_lt_precision's bound). */
enum { EPILOGUES = 7, VARIANTS = 4 };
static const lt_epilogue epilogues[EPILOGUES] = {
    LT_EPILOGUE_DEFAULT,     LT_EPILOGUE_BIAS,   LT_EPILOGUE_RELU_AUX_BIAS,
    LT_EPILOGUE_DRELU_BGRAD, LT_EPILOGUE_BGRADB, LT_EPILOGUE_DRELU,
    LT_EPILOGUE_BGRADA};
static const char *variant_names[VARIANTS] = {
    "fused, autotune exact", "fused, autotune fast",
    "fused, first heuristic choice", "unfused"};

static double *to_double(const float *x, size_t count, int absolute) {
  double *y = malloc(count * sizeof(double));
  for (size_t i = 0; i < count; i++)
    y[i] = absolute ? fabs(x[i]) : x[i];
  return y;
}

static float *random_floats(test_rng *rng, size_t count) {
  float *x = malloc(count * sizeof(float));
  for (size_t i = 0; i < count; i++)
    x[i] = (float)test_rng_uniform(rng, -1, 1);
  return x;
}

START_TEST(epilogue_matches_oracle) {
  int variant = _i % VARIANTS;
  lt_epilogue epilogue = epilogues[_i / VARIANTS % EPILOGUES];
  test_shape s = test_shapes[_i / VARIANTS / EPILOGUES];
  gpu_context *ctx = variant == 1   ? ctx_fast
                     : variant == 2 ? ctx_off
                                    : ctx_exact;
  int unfused = variant == 3;
  int m = s.m, n = s.n, k = s.k;
  /* The transposes the MLP uses; DEFAULT tries all four over the shapes. */
  int ta = 0, tb = 0;
  if (epilogue == LT_EPILOGUE_BIAS || epilogue == LT_EPILOGUE_RELU_AUX_BIAS)
    ta = 1;
  /* BGRADA as mnist_bench --alternatives calls it: dW (out, in) = dZ X^T. */
  if (epilogue == LT_EPILOGUE_BGRADB || epilogue == LT_EPILOGUE_BGRADA) tb = 1;
  if (epilogue == LT_EPILOGUE_DEFAULT) {
    ta = (_i / VARIANTS / EPILOGUES) & 1;
    tb = (_i / VARIANTS / EPILOGUES) >> 1 & 1;
  }
  int lda = ta ? k : m, ldb = tb ? n : k, ldd = m;
  size_t a_count = (size_t)lda * (ta ? m : k),
         b_count = (size_t)ldb * (tb ? k : n);
  size_t d_count = (size_t)m * n;
  int bias_len = epilogue == LT_EPILOGUE_BGRADB ? n : m;
  int aux_ld = lt_aux_ld(m);
  size_t aux_bytes = lt_aux_bytes(m, n);
  int bias_in = lt_epilogue_reads_bias(epilogue);
  int has_bias = bias_in || lt_epilogue_writes_bias_grad(epilogue);
  int has_aux = lt_epilogue_uses_aux(epilogue);
  /* DRELU_BGRAD and DRELU read a random mask. */
  int masked = has_aux && epilogue != LT_EPILOGUE_RELU_AUX_BIAS;

  test_rng rng;
  test_rng_init(&rng, seed + (uint64_t)_i);
  float *h_a = random_floats(&rng, a_count),
        *h_b = random_floats(&rng, b_count);
  float *h_bias = random_floats(&rng, (size_t)bias_len);
  uint8_t *h_aux = malloc(aux_bytes);
  for (size_t i = 0; i < aux_bytes; i++)
    h_aux[i] = masked ? (uint8_t)test_rng_next(&rng) : 0xA5;

  float *d_a = test_upload(h_a, a_count * sizeof(float));
  float *d_b = test_upload(h_b, b_count * sizeof(float));
  float *d_d = test_upload(NULL, d_count * sizeof(float));
  test_fill_device(d_d, 0xFF, d_count * sizeof(float)); /* NaN poison */
  float *d_bias =
      test_upload(bias_in ? h_bias : NULL, (size_t)bias_len * sizeof(float));
  if (!bias_in)
    test_fill_device(d_bias, 0x7F, (size_t)bias_len * sizeof(float));
  uint8_t *d_aux = test_upload(h_aux, aux_bytes);

  lt_shape shape = {.m = m,
                    .n = n,
                    .k = k,
                    .transa = ta,
                    .transb = tb,
                    .lda = lda,
                    .ldb = ldb,
                    .ldd = ldd,
                    .epilogue = epilogue,
                    .aux_ld = has_aux ? aux_ld : 0};
  lt_matmul_call call = {.shape = shape,
                         .d_a = d_a,
                         .d_b = d_b,
                         .d_d = d_d,
                         .d_bias = bias_in ? d_bias : NULL,
                         .d_bias_grad = has_bias && !bias_in ? d_bias : NULL,
                         .d_aux = has_aux ? d_aux : NULL};
  int status = unfused ? lt_matmul_unfused(ctx, &call) : lt_matmul(ctx, &call);
  ck_assert_msg(status == 0, "%s %s: %s", variant_names[variant],
                lt_epilogue_name(epilogue), lt_last_error(ctx));
  float *got_d = malloc(d_count * sizeof(float));
  float *got_bias = malloc((size_t)bias_len * sizeof(float));
  uint8_t *got_aux = malloc(aux_bytes);
  test_download(got_d, d_d, d_count * sizeof(float));
  test_download(got_bias, d_bias, (size_t)bias_len * sizeof(float));
  test_download(got_aux, d_aux, aux_bytes);

  /* The oracle's answer, the plain product G (for the ReLU kink) and the
   * sum of |a||b| per element (for the error bound). */
  double *a = to_double(h_a, a_count, 0), *b = to_double(h_b, b_count, 0);
  double *abs_a = to_double(h_a, a_count, 1),
         *abs_b = to_double(h_b, b_count, 1);
  double *bias = to_double(h_bias, (size_t)bias_len, 0);
  double *ref = malloc(d_count * sizeof(double)),
         *g = malloc(d_count * sizeof(double));
  double *mag = malloc(d_count * sizeof(double));
  uint8_t *ref_aux = malloc(aux_bytes);
  memcpy(ref_aux, h_aux, aux_bytes);
  double *ref_bias_grad = malloc((size_t)bias_len * sizeof(double));
  oracle_call want = {.shape = shape,
                      .a = a,
                      .b = b,
                      .d = ref,
                      .bias = bias_in ? bias : NULL,
                      .bias_grad = has_bias && !bias_in ? ref_bias_grad : NULL,
                      .aux = has_aux ? ref_aux : NULL};
  oracle_matmul(&want);
  lt_shape plain_shape = shape;
  plain_shape.epilogue = LT_EPILOGUE_DEFAULT;
  plain_shape.aux_ld = 0;
  oracle_call plain = {.shape = plain_shape, .a = a, .b = b, .d = g};
  oracle_matmul(&plain);
  oracle_call magnitude = {
      .shape = plain_shape, .a = abs_a, .b = abs_b, .d = mag};
  oracle_matmul(&magnitude);

  const char *what = lt_epilogue_name(epilogue);
  for (int j = 0; j < n; j++) {
    for (int i = 0; i < m; i++) {
      size_t at = (size_t)j * ldd + i;
      double bound = 2.0 * (k + 2) * UNIT_ROUNDOFF *
                     (mag[at] + (bias_in ? fabs(bias[i]) : 0.0));
      double err = fabs(got_d[at] - ref[at]);
      ck_assert_msg(err <= bound,
                    "%s %s m=%d n=%d k=%d: D(%d,%d) = %.9g, "
                    "oracle %.9g, bound %.3g",
                    variant_names[variant], what, m, n, k, i, j, got_d[at],
                    ref[at], bound);
      if (epilogue == LT_EPILOGUE_RELU_AUX_BIAS) {
        double z = g[at] + bias[i];
        if (fabs(z) > bound)
          ck_assert_msg(oracle_mask_bit(got_aux, aux_ld, i, j) ==
                            oracle_mask_bit(ref_aux, aux_ld, i, j),
                        "%s: mask bit (%d,%d) wrong for z = %g", what, i, j, z);
      }
      if (masked && !oracle_mask_bit(h_aux, aux_ld, i, j))
        ck_assert_msg(got_d[at] == 0.0f,
                      "%s: D(%d,%d) = %g where the mask is 0", what, i, j,
                      got_d[at]);
    }
  }
  if (epilogue == LT_EPILOGUE_RELU_AUX_BIAS) {
    /* Whole bytes past row m in every column are never written. */
    int used = (m + 7) / 8;
    for (int j = 0; j < n; j++)
      for (int byte = used; byte < aux_ld / 8; byte++)
        ck_assert_msg(
            got_aux[(size_t)j * (aux_ld / 8) + byte] == 0xA5,
            "%s %s m=%d: padding byte %d of column %d changed to 0x%02x",
            variant_names[variant], what, m, byte, j,
            got_aux[(size_t)j * (aux_ld / 8) + byte]);
  }
  if (epilogue == LT_EPILOGUE_DRELU_BGRAD)
    for (int i = 0; i < m; i++) {
      double bound = 0, size = 0;
      for (int j = 0; j < n; j++) {
        bound += 2.0 * (k + 2) * UNIT_ROUNDOFF * mag[(size_t)j * ldd + i];
        size += fabs(ref[(size_t)j * ldd + i]);
      }
      bound += 2.0 * (n + 2) * UNIT_ROUNDOFF * size;
      ck_assert_msg(fabs(got_bias[i] - ref_bias_grad[i]) <= bound,
                    "%s %s: db[%d] = %.9g, oracle %.9g", variant_names[variant],
                    what, i, got_bias[i], ref_bias_grad[i]);
    }
  /* BGRADB: op(B) (k, n) stored (n, k) summed over k; BGRADA: op(A)
   * (m, k) stored (m, k). */
  int bgrada = epilogue == LT_EPILOGUE_BGRADA;
  if (epilogue == LT_EPILOGUE_BGRADB || bgrada)
    for (int j = 0; j < bias_len; j++) {
      double size = 0;
      for (int p = 0; p < k; p++)
        size += fabs(bgrada ? a[(size_t)p * lda + j] : b[(size_t)p * ldb + j]);
      double bound = 2.0 * (k + 2) * UNIT_ROUNDOFF * size;
      ck_assert_msg(fabs(got_bias[j] - ref_bias_grad[j]) <= bound,
                    "%s %s: db[%d] = %.9g, oracle %.9g", variant_names[variant],
                    what, j, got_bias[j], ref_bias_grad[j]);
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
  free(abs_a);
  free(abs_b);
  free(bias);
  free(ref);
  free(g);
  free(mag);
  free(ref_aux);
  free(ref_bias_grad);
  test_free(d_a);
  test_free(d_b);
  test_free(d_d);
  test_free(d_bias);
  test_free(d_aux);
}
END_TEST

/* Pre-activations that are exactly 0 (A = 0, bias 0 or -0) pass the
 * gradient: their bit is 1 and their output 0; negative ones are 0. */
START_TEST(relu_bit_is_set_for_exact_zero) {
  enum { M = 131, N = 5, K = 3 };
  gpu_context *ctx = _i == 1 ? ctx_off : ctx_exact; /* 2: unfused */
  float h_a[K * M] = {0}, h_b[K * N], h_bias[M];
  for (int i = 0; i < K * N; i++)
    h_b[i] = 1.0f;
  for (int i = 0; i < M; i++)
    h_bias[i] = i % 3 == 0 ? 0.0f : (i % 3 == 1 ? -0.0f : -1.0f);
  int aux_ld = lt_aux_ld(M);
  float *d_a = test_upload(h_a, sizeof h_a),
        *d_b = test_upload(h_b, sizeof h_b);
  float *d_bias = test_upload(h_bias, sizeof h_bias);
  float *d_d = test_upload(NULL, sizeof(float) * M * N);
  uint8_t *d_aux = test_upload(NULL, lt_aux_bytes(M, N));
  test_fill_device(d_aux, 0, lt_aux_bytes(M, N));
  /* Dense buffers: unpadded leading dimensions. */
  lt_shape shape = lt_shape_forward(K, M, N, 1);
  shape.lda = shape.ldb = K;
  shape.ldd = M;
  lt_matmul_call call = {.shape = shape,
                         .d_a = d_a,
                         .d_b = d_b,
                         .d_d = d_d,
                         .d_bias = d_bias,
                         .d_aux = d_aux};
  ck_assert_int_eq(
      _i == 2 ? lt_matmul_unfused(ctx, &call) : lt_matmul(ctx, &call), 0);
  float d[M * N];
  uint8_t aux[256 / 8 * N];
  test_download(d, d_d, sizeof d);
  test_download(aux, d_aux, sizeof aux);
  for (int j = 0; j < N; j++)
    for (int i = 0; i < M; i++) {
      ck_assert_msg(oracle_mask_bit(aux, aux_ld, i, j) == (i % 3 != 2),
                    "variant %d: bit (%d,%d)", _i, i, j);
      ck_assert(d[j * M + i] == 0.0f);
    }
  test_free(d_a);
  test_free(d_b);
  test_free(d_bias);
  test_free(d_d);
  test_free(d_aux);
}
END_TEST

int main(void) {
  test_require_gpu("lt_epilogues");
  seed = test_seed("lt_epilogues");
  ctx_exact = test_context(GPU_AUTOTUNE_EXACT, GPU_PRECISION_FP32);
  ctx_fast = test_context(GPU_AUTOTUNE_FAST, GPU_PRECISION_FP32);
  ctx_off = test_context(GPU_AUTOTUNE_OFF, GPU_PRECISION_FP32);
  if (!ctx_exact || !ctx_fast || !ctx_off) {
    printf("lt_epilogues: could not create the GPU contexts (see above)\n");
    return 1;
  }
  Suite *suite = suite_create("lt_epilogues");
  TCase *tc = tcase_create("epilogues");
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, epilogue_matches_oracle, 0,
                      TEST_SHAPES * EPILOGUES * VARIANTS);
  tcase_add_loop_test(tc, relu_bit_is_set_for_exact_zero, 0, 3);
  suite_add_tcase(suite, tc);
  int status = test_run_suite(suite, 1);
  gpu_context_destroy(ctx_off);
  gpu_context_destroy(ctx_fast);
  gpu_context_destroy(ctx_exact);
  return status;
}
