/* test_fp8_util.c: see test_fp8_util.h. */
#include "tests/test_fp8_util.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "layers/mlp_fp8.h"
#include "layers/oracle.h"
#include "tests/test_gpu.h"
#include "tests/test_types.h"

test_fp8_batch test_fp8_batch_make(const float *h_x, int features, int n) {
  test_fp8_batch b;
  int ld = lt_ld(features), ld8 = lt_ld_fp8(features), ldt = lt_ld_fp8(n);
  float amax = 0.0f;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < features; i++)
      amax = fmaxf(amax, fabsf(h_x[(size_t)j * ld + i]));
  b.scale = 1.0f;
  fp8_scale_from_amax(&b.scale, amax, LT_FP8_E4M3, NULL, 0);
  size_t bytes = mlp_fp8_batch_bytes(features, n);
  uint8_t *block = calloc(bytes, 1);
  b.h_x8 = calloc((size_t)ld8 * n, 1);
  b.h_x8t = calloc((size_t)ldt * features, 1);
  for (int j = 0; j < n; j++)
    for (int i = 0; i < features; i++) {
      uint8_t q =
          fp8_encode_scaled(h_x[(size_t)j * ld + i], b.scale, LT_FP8_E4M3);
      b.h_x8[(size_t)j * ld8 + i] = q;
      b.h_x8t[(size_t)i * ldt + j] = q;
    }
  float record[2] = {1.0f / b.scale, b.scale};
  memcpy(block, record, sizeof record);
  memcpy(block + MLP_FP8_BATCH_X8, b.h_x8, (size_t)ld8 * n);
  memcpy(block + mlp_fp8_batch_x8t(features, n), b.h_x8t,
         (size_t)ldt * features);
  b.d_block = test_upload(block, bytes);
  free(block);
  return b;
}

test_fp8_view test_fp8_layer(const mlp *net, int l, const void *d_x, int n) {
  const mlp_fp8_tensors *f = net->fp8_tensors;
  test_fp8_view v = {f->w8[l],  f->w8t[l],  f->x8[l],      f->x8t[l],
                     f->dz8[l], f->dz8t[l], f->partials[l]};
  if (l == 0) {
    v.x8 = (const uint8_t *)d_x + MLP_FP8_BATCH_X8;
    v.x8t = (const uint8_t *)d_x + mlp_fp8_batch_x8t(net->layers[0].in, n);
  }
  return v;
}

void test_fp8_run_open(test_fp8_run *r, const int *widths, int depth,
                       int max_batch, int n, const mlp_options *options,
                       uint64_t seed) {
  mlp_options o = {.type = LT_DTYPE_BF16};
  if (options) o = *options;
  o.fp8 = 1;
  memset(r, 0, sizeof *r);
  r->n = n;
  r->ctx = test_context(GPU_AUTOTUNE_EXACT, GPU_PRECISION_FP8);
  ck_assert_ptr_nonnull(r->ctx);
  ck_assert_int_eq(mlp_create(&r->net, widths, depth, max_batch, &o), 0);
  ck_assert_int_eq(mlp_init_params(r->net, r->ctx, seed), 0);
  test_rng rng;
  test_rng_init(&rng, seed);
  int in = r->net->layout.widths[0];
  r->batch = test_batch_make(&rng, in, n, r->net->units[depth], LT_DTYPE_BF16);
  r->x = test_fp8_batch_make(r->batch.h_x, in, n);
  r->d_stats = test_upload(NULL, 2 * sizeof(double));
}

void test_fp8_run_passes(test_fp8_run *r, int passes, mlp_mode mode) {
  for (int pass = 0; pass < passes; pass++) {
    ck_assert_int_eq(mlp_forward(r->net, r->ctx, r->x.d_block, r->n, mode), 0);
    ck_assert_int_eq(mlp_backward(r->net, r->ctx, r->x.d_block,
                                  r->batch.d_labels, r->n, mode, r->d_stats),
                     0);
  }
}

void test_fp8_run_close(test_fp8_run *r) {
  test_free(r->d_stats);
  test_fp8_batch_free(&r->x);
  test_batch_free(&r->batch);
  mlp_destroy(r->net);
  gpu_context_destroy(r->ctx);
}

void test_fp8_batch_free(test_fp8_batch *b) {
  test_free(b->d_block);
  free(b->h_x8);
  free(b->h_x8t);
}

uint8_t *test_fp8_codes(const uint8_t *d_q, size_t count) {
  uint8_t *q = malloc(count ? count : 1);
  test_download(q, d_q, count);
  return q;
}

double *test_fp8_decoded(const uint8_t *d_q, size_t count, lt_fp8 format,
                         float scale_inv) {
  uint8_t *q = test_fp8_codes(d_q, count);
  double *out = malloc((count ? count : 1) * sizeof(double));
  for (size_t i = 0; i < count; i++)
    out[i] = fp8_decode_scaled(q[i], scale_inv, format);
  free(q);
  return out;
}

void test_fp8_check_cast(const double *src, int ld_src, int rows, int cols,
                         const uint8_t *d_q, int ld_q, const uint8_t *d_qt,
                         int ld_qt, float scale, lt_fp8 format, int tolerant,
                         const char *what) {
  uint8_t *q = d_q ? test_fp8_codes(d_q, (size_t)ld_q * cols) : NULL;
  int pad = lt_ld_fp8(cols);
  uint8_t *qt = d_qt ? test_fp8_codes(d_qt, (size_t)ld_qt * rows) : NULL;
  double u = format == LT_FP8_E5M2 ? 0.125 : 0.0625;
  for (int j = 0; j < cols; j++)
    for (int i = 0; i < rows; i++) {
      float x = (float)src[(size_t)j * ld_src + i];
      uint8_t want = fp8_encode_scaled(x, scale, format);
      uint8_t got[2] = {q ? q[(size_t)j * ld_q + i] : want,
                        qt ? qt[(size_t)i * ld_qt + j] : want};
      for (int k = 0; k < 2; k++) {
        if (!tolerant) {
          ck_assert_msg(got[k] == want,
                        "%s%s (%d,%d): 0x%02x, want 0x%02x (x %g, scale %g)",
                        what, k ? " transposed" : "", i, j, got[k], want, x,
                        scale);
          continue;
        }
        double v = fp8_decode_scaled(got[k], 1.0f / scale, format);
        double tol = (u + 1.0 / 128) * fabs(x) +
                     ldexp(1.0, format == LT_FP8_E5M2 ? -16 : -9) / scale;
        ck_assert_msg(fabs(v - x) <= tol, "%s (%d,%d): %g, want %g", what, i, j,
                      v, x);
      }
    }
  for (int j = cols; qt && j < pad; j++)
    for (int i = 0; i < rows; i++)
      ck_assert_msg(qt[(size_t)i * ld_qt + j] == 0,
                    "%s transposed: padding row %d (of %d samples) column "
                    "%d is 0x%02x, not 0: the padded weight GEMM would read "
                    "it",
                    what, j, cols, i, qt[(size_t)i * ld_qt + j]);
  free(q);
  free(qt);
}

int test_fp8_code_within(uint8_t code, double lo, double hi, float scale,
                         lt_fp8 format) {
  double got = fp8_decode(code, format);
  double low = fp8_decode(fp8_encode_scaled((float)lo, scale, format), format);
  double high = fp8_decode(fp8_encode_scaled((float)hi, scale, format), format);
  return got >= low && got <= high; /* false for a NaN code */
}

int test_fp8_code_near(uint8_t code, double z, double bound, float scale,
                       lt_fp8 format) {
  return test_fp8_code_within(code, z - bound, z + bound, scale, format);
}

static const float scale_a = 0.5f, scale_b = 0.25f, scale_d = 0.5f;

/* cuBLASLt's fused GELU evaluates tanh to 2^-10.987 (test_call_check.c). */
#define TANH_APPROX 4.9e-4

/* count codes of integers -2 .. 2 in `format`, their values in *values. */
static uint8_t *integer_codes(test_rng *rng, size_t count, lt_fp8 format,
                              float **values) {
  uint8_t *q = malloc(count);
  *values = malloc(count * sizeof(float));
  for (size_t i = 0; i < count; i++) {
    (*values)[i] = (float)((int)(test_rng_next(rng) % 5) - 2);
    q[i] = fp8_encode((*values)[i], format);
  }
  return q;
}

/* The exact z (i, j) of the call's product of the integer operands. */
static float exact_z(const lt_shape *s, const float *av, const float *bv,
                     const float *bias, int i, int j) {
  long exact = 0;
  for (int p = 0; p < s->k; p++)
    exact +=
        (long)av[(size_t)i * s->lda + p] * (long)bv[(size_t)j * s->ldb + p];
  return (float)exact * scale_a * scale_b + (bias ? bias[i] : 0.0f);
}

/* Element (i, j) of D against the exact epilogue's output `out` of z. */
static void check_element(const lt_shape *s, const uint8_t *d8, const double *d,
                          int i, int j, float z, double out,
                          const char *label) {
  size_t at = (size_t)j * s->ldd + i;
  int gelu = s->epilogue == LT_EPILOGUE_GELU_AUX_BIAS;
  double slack = gelu ? 0.5 * fabs(z) * TANH_APPROX + 1e-6 : 0.0;
  if (d8 && !gelu) {
    uint8_t want = fp8_encode_scaled((float)out, scale_d, LT_FP8_E4M3);
    ck_assert_msg(d8[at] == want,
                  "%s (%s): D(%d,%d) = 0x%02x, the exact %g at D scale %g is "
                  "0x%02x",
                  label, lt_epilogue_name(s->epilogue), i, j, d8[at], out,
                  scale_d, want);
  } else if (d8) {
    ck_assert_msg(test_fp8_code_near(d8[at], out, slack, scale_d, LT_FP8_E4M3),
                  "%s (GELU): D(%d,%d) = 0x%02x, GELU(%g) = %g", label, i, j,
                  d8[at], z, out);
  } else {
    double want = test_round(LT_DTYPE_BF16, (float)out);
    double tol = gelu ? 1.01 * slack + ldexp(fabs(out), -8) : 0.0;
    ck_assert_msg(fabs(d[at] - want) <= tol,
                  "%s (%s): D(%d,%d) = %g, exact %g (scales %g, %g)", label,
                  lt_epilogue_name(s->epilogue), i, j, d[at], want, scale_a,
                  scale_b);
  }
}

void test_fp8_exact_call(gpu_context *ctx, int lane, const lt_matmul_call *c,
                         test_rng *rng, const char *label) {
  lt_matmul_call call = *c;
  const lt_shape *s = &call.shape;
  ck_assert_msg(lt_shape_is_fp8(s) && s->transa && !s->transb && s->m <= 4096,
                "%s: not an FP8 TN call of m <= 4096", label);
  size_t a_count = (size_t)s->lda * s->m, b_count = (size_t)s->ldb * s->n;
  float *av, *bv, bias[4096];
  uint8_t *a = integer_codes(rng, a_count, s->a_fp8, &av);
  uint8_t *b = integer_codes(rng, b_count, s->b_fp8, &bv);
  test_copy_to_device((void *)call.d_a, a, a_count);
  test_copy_to_device((void *)call.d_b, b, b_count);
  test_copy_to_device((void *)call.d_a_scale, &scale_a, sizeof scale_a);
  test_copy_to_device((void *)call.d_b_scale, &scale_b, sizeof scale_b);
  if (s->d_fp8) test_copy_to_device((void *)call.d_d_scale, &scale_d, 4);
  for (int i = 0; i < s->m; i++)
    bias[i] = (float)((int)(test_rng_next(rng) % 7) - 3);
  if (call.d_bias) {
    void *packed = test_pack(LT_DTYPE_BF16, bias, (size_t)s->m);
    test_copy_to_device((void *)call.d_bias, packed, (size_t)s->m * 2);
    free(packed);
  }
  ck_assert_msg(lt_matmul_on(ctx, lane, &call) == 0, "%s: %s", label,
                lt_last_error(ctx));
  test_sync(ctx);
  size_t d_count = (size_t)s->ldd * s->n;
  int gelu = s->epilogue == LT_EPILOGUE_GELU_AUX_BIAS;
  uint8_t *d8 = s->d_fp8 ? test_fp8_codes(call.d_d, d_count) : NULL;
  double *d =
      s->d_fp8 ? NULL : test_download_as(LT_DTYPE_BF16, call.d_d, d_count);
  uint8_t *mask = call.d_aux && !gelu
                      ? test_fp8_codes(call.d_aux, lt_call_aux_bytes(s))
                      : NULL;
  double *gelu_in = gelu ? test_download_as(LT_DTYPE_BF16, call.d_aux,
                                            (size_t)s->aux_ld * s->n)
                         : NULL;
  float got_amax = 0.0f;
  double amax = 0.0, amax_slack = 0.0;
  if (s->d_fp8) test_download(&got_amax, call.d_amax_d, sizeof got_amax);
  for (int j = 0; j < s->n; j++)
    for (int i = 0; i < s->m; i++) {
      float z = exact_z(s, av, bv, call.d_bias ? bias : NULL, i, j);
      int bit = z >= 0.0f;
      double out = gelu ? oracle_gelu(z)
                   : s->epilogue == LT_EPILOGUE_RELU_AUX_BIAS && !bit ? 0.0
                                                                      : z;
      amax = fmax(amax, fabs(out));
      if (gelu) amax_slack = fmax(amax_slack, 0.5 * fabs(z) * TANH_APPROX);
      check_element(s, d8, d, i, j, z, out, label);
      if (mask)
        ck_assert_msg(oracle_mask_bit(mask, s->aux_ld, i, j) == bit,
                      "%s: mask bit (%d,%d) for z = %g", label, i, j, z);
      if (gelu_in)
        ck_assert_msg(gelu_in[(size_t)j * s->aux_ld + i] ==
                          test_round(LT_DTYPE_BF16, z),
                      "%s: GELU input (%d,%d) = %g, exact %g in BF16", label, i,
                      j, gelu_in[(size_t)j * s->aux_ld + i], z);
    }
  if (s->d_fp8)
    ck_assert_msg(fabs(got_amax - amax) <= amax_slack,
                  "%s: AMAX_D %.9g, exact %.9g", label, got_amax, amax);
  free(gelu_in);
  free(mask);
  free(d);
  free(d8);
  free(a);
  free(b);
  free(av);
  free(bv);
}
