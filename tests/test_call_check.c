/* test_call_check.c: see test_call_check.h.
 *
 * The bound (Higham, Accuracy and Stability, 2.2 and 3.1). Inputs are
 * exact: both sides read the same stored values. Products accumulate in
 * FP32 (u = 2^-24) and the bias is added in FP32, so the computed z is
 * within acc = 2 (k + 2) u (sum|a b| + |bias|) of the exact value (a
 * factor 2 to spare). Storing rounds: fl(x) = x (1 + d) + e with |d| <=
 * u_s (2^-8 BF16, 2^-11 FP16, u in FP32) and |e| <= eta_s (half the
 * smallest subnormal spacing: 2^-25 FP16, 2^-134 BF16, 2^-150 FP32) for
 * results that underflow. The fused epilogue rounds z once; the unfused
 * twin rounds the product g, adds the bias in float and rounds again. Both
 * are within (1 + u_s) (u_s (|g| + |z|) + 2 eta_s) + 2 acc of the exact z,
 * which is the bound per element. ReLU is 1-Lipschitz, so its output
 * obeys it wherever both took the same decision. The decisions are made
 * in float before the last rounding (fused: on z, unfused: on the rounded
 * g plus the bias), so a mask bit is compared only where |z| exceeds u_s
 * |g| + eta_s + acc. A bias gradient sums n elements (their FP32 values or
 * their stored ones, each within its bound), in FP32 (2 (n + 2) u of the
 * sum of magnitudes), and is stored (u_s, eta_s). BGRADB sums exact
 * inputs. A wrong index, a missing term or a wrong mask is off by
 * O(|a b|): outside these bounds for D; a bias gradient's bound grows
 * with n u_s |g|, which in 16-bit at n = 256 can exceed one term, so
 * test_lt_precision also runs every call on small integers, where every
 * result is exact and must match bit for bit. FP8 calls (a and b are
 * then the decoded FP8 operands times their scale_inv, exact in double)
 * use FP8_ACCUMULATION_U below for the accumulation. */
#include "tests/test_call_check.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "layers/oracle.h"

#define U32 (1.0 / 16777216.0)

/* FP8 GEMMs: the products of two FP8 values are exact in FP32 (4 by 4
 * significant bits at most), but Hopper's tensor cores add them in a
 * narrower accumulator: DeepSeek-V3's report (arXiv 2412.19437, section
 * 3.3.2) measured about 14 bits retained on the H800, which cuBLASLt
 * promotes to FP32 periodically, and less often with
 * CUBLASLT_MATMUL_DESC_FAST_ACCUM. So FP8 calls get u = 2^-14 for the
 * accumulation, in both modes, in place of FP32's 2^-24. */
#define FP8_ACCUMULATION_U (1.0 / 16384.0)

/* Half the smallest subnormal spacing of the storage type. */
static double underflow(lt_dtype type) {
  return type == LT_DTYPE_F16    ? ldexp(1.0, -25)
         : type == LT_DTYPE_BF16 ? ldexp(1.0, -134)
                                 : ldexp(1.0, -150);
}

/* The bound of one element (see above). */
static double element_bound(double us, double eta, double ua, int k, double g,
                            double z, double size) {
  double acc = 2.0 * (k + 2) * ua * size;
  return (1.0 + us) * (us * (fabs(g) + fabs(z)) + 2.0 * eta) + 2.0 * acc;
}

/* GELU is 1.13-Lipschitz (max |GELU'|), so an error e in its input moves
 * its output by at most 1.13 e. The output of GELU_AUX_BIAS: the input's
 * error before the last rounding (the fused epilogue applies GELU to the
 * FP32 z, the twin to the float z from its rounded product), then one
 * rounding, plus the evaluation of tanh: cuBLASLt's fused FP32 GELU is off
 * the exactly computed tanh form by up to 5.3e-6 on [-8, 8] (measured,
 * test_lt_gelu; the erf form is 90 times further), more than tanhf's
 * rounding explains and consistent with the hardware tanh.approx.f32,
 * whose relative error is at most 2^-10.987 (PTX ISA). So we allow an
 * error dt <= 2^-10.987 |t| <= 2^-10.987 in t = tanh(...): GELU moves by
 * |z| dt / 2, GELU' by dt (1/2 + |z| s (1 + 3 c z^2)). DGELU_BGRAD: the
 * product's error times |GELU'(z_in)| (z_in exact: both read the stored
 * input), one rounding, and GELU''s evaluation times |g|. The unfused twin
 * rounds the product to the storage type before DGELU reads it: that
 * rounding's error is us |g| or, below the type's normal range, up to eta
 * (half its smallest step: an FP16 product of 5.6e-6 rounds by up to 3e-8
 * absolute, 0.5 % relative), so both terms enter before the slope. */
#define GELU_LIPSCHITZ 1.13
#define TANH_APPROX 4.9e-4 /* 2^-10.987 */

static double gelu_out_bound(double us, double eta, double ua, int k, double g,
                             double z, double size, double ref) {
  double acc = 2.0 * (k + 2) * ua * size;
  return GELU_LIPSCHITZ * (us * fabs(g) + 2.0 * acc + eta) + us * fabs(ref) +
         eta + 0.5 * fabs(z) * TANH_APPROX;
}

static double dgelu_bound(double us, double eta, double ua, int k, double g,
                          double mag, double ref, double z_in) {
  double acc = 2.0 * (k + 2) * ua * mag;
  double slope = fabs(oracle_gelu_grad(z_in));
  double dslope =
      TANH_APPROX *
      (0.5 + fabs(z_in) * 0.7978845608 * (1.0 + 3.0 * 0.044715 * z_in * z_in));
  return slope * (us * fabs(g) + eta + 2.0 * acc) + us * fabs(ref) + eta +
         dslope * fabs(g);
}

int test_check_call(const test_call_result *r, const char *label) {
  const lt_shape *s = &r->shape;
  int m = s->m, n = s->n, k = s->k;
  double us = lt_dtype_unit_roundoff(s->type), eta = underflow(s->type);
  double ua = lt_shape_is_fp8(s) ? FP8_ACCUMULATION_U : U32;
  size_t d_count = (size_t)s->ldd * n;
  double *ref = calloc(d_count, sizeof(double));
  double *g = calloc(d_count, sizeof(double));
  double *mag = calloc(d_count, sizeof(double));
  double *ref_bias_grad = calloc((size_t)(m > n ? m : n) + 1, sizeof(double));
  uint8_t *ref_aux = NULL;
  size_t aux_bytes = lt_epilogue_aux_is_mask(s->epilogue)
                         ? (size_t)s->aux_ld / 8 * (size_t)n
                         : 0;
  int gelu_fwd = s->epilogue == LT_EPILOGUE_GELU_AUX_BIAS;
  int gelu_bwd = s->epilogue == LT_EPILOGUE_DGELU_BGRAD ||
                 s->epilogue == LT_EPILOGUE_DGELU;
  int relu_bwd = s->epilogue == LT_EPILOGUE_DRELU_BGRAD ||
                 s->epilogue == LT_EPILOGUE_DRELU;
  double *ref_gelu =
      gelu_fwd ? calloc((size_t)s->aux_ld * n, sizeof(double)) : NULL;
  if (aux_bytes) {
    ref_aux = calloc(aux_bytes, 1);
    if (r->aux_in)
      for (size_t i = 0; i < aux_bytes; i++)
        ref_aux[i] = r->aux_in[i];
  }
  oracle_call want = {.shape = *s,
                      .a = r->a,
                      .b = r->b,
                      .d = ref,
                      .bias = r->bias,
                      .bias_grad = ref_bias_grad,
                      .aux = ref_aux,
                      .gelu_input = gelu_fwd ? ref_gelu : (double *)r->gelu_in};
  oracle_matmul(&want);
  lt_shape plain = *s;
  plain.epilogue = LT_EPILOGUE_DEFAULT;
  plain.aux_ld = 0;
  oracle_call product = {.shape = plain, .a = r->a, .b = r->b, .d = g};
  oracle_matmul(&product);
  /* sum |a b| per element: the product of the absolute values. */
  size_t a_count = (size_t)s->lda * (s->transa ? m : k);
  size_t b_count = (size_t)s->ldb * (s->transb ? k : n);
  double *abs_a = malloc(a_count * sizeof(double));
  double *abs_b = malloc(b_count * sizeof(double));
  for (size_t i = 0; i < a_count; i++)
    abs_a[i] = fabs(r->a[i]);
  for (size_t i = 0; i < b_count; i++)
    abs_b[i] = fabs(r->b[i]);
  oracle_call magnitude = {.shape = plain, .a = abs_a, .b = abs_b, .d = mag};
  oracle_matmul(&magnitude);

  int skipped = 0;
  const char *what = lt_epilogue_name(s->epilogue);
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++) {
      size_t at = (size_t)j * s->ldd + i;
      double size = mag[at] + (r->bias ? fabs(r->bias[i]) : 0.0);
      double z = g[at] + (r->bias ? r->bias[i] : 0.0);
      double bound = element_bound(us, eta, ua, k, g[at], z, size);
      if (gelu_fwd) {
        size_t zat = (size_t)j * s->aux_ld + i;
        ck_assert_msg(fabs(r->gelu_out[zat] - z) <= bound,
                      "%s %s: GELU input (%d,%d) = %.9g, oracle %.9g, bound "
                      "%.3g",
                      label, what, i, j, r->gelu_out[zat], z, bound);
        bound = gelu_out_bound(us, eta, ua, k, g[at], z, size, ref[at]);
      }
      if (gelu_bwd)
        bound = dgelu_bound(us, eta, ua, k, g[at], mag[at], ref[at],
                            r->gelu_in[(size_t)j * s->aux_ld + i]);
      int decided = 1;
      if (s->epilogue == LT_EPILOGUE_RELU_AUX_BIAS) {
        decided = fabs(z) > us * fabs(g[at]) + eta + 2.0 * (k + 2) * ua * size;
        skipped += !decided;
        if (decided)
          ck_assert_msg(oracle_mask_bit(r->aux_out, s->aux_ld, i, j) ==
                            oracle_mask_bit(ref_aux, s->aux_ld, i, j),
                        "%s %s: mask bit (%d,%d) wrong for z = %g", label, what,
                        i, j, z);
      }
      if (relu_bwd && !oracle_mask_bit(r->aux_in, s->aux_ld, i, j))
        ck_assert_msg(r->d[at] == 0.0,
                      "%s %s: D(%d,%d) = %g where the mask "
                      "is 0",
                      label, what, i, j, r->d[at]);
      /* Undecided ReLU: either output is right (0, or z within bound). */
      double err = decided ? fabs(r->d[at] - ref[at])
                           : fmin(fabs(r->d[at]), fabs(r->d[at] - z));
      ck_assert_msg(err <= bound,
                    "%s %s %s m=%d n=%d k=%d: D(%d,%d) = %.9g, oracle %.9g, "
                    "bound %.3g",
                    label, what, lt_dtype_name(s->type), m, n, k, i, j,
                    r->d[at], ref[at], bound);
    }
  if (s->epilogue == LT_EPILOGUE_DRELU_BGRAD ||
      s->epilogue == LT_EPILOGUE_DGELU_BGRAD)
    for (int i = 0; i < m; i++) {
      /* Each summed element is within e of exact: DRELU: one rounding of
       * the product (us |g| + acc), and only where the mask is 1 (masked
       * elements are exact zeros); DGELU: its element bound. Then the FP32
       * sum and one rounding of the result. */
      double each = 0, sum = 0;
      for (int j = 0; j < n; j++) {
        size_t at = (size_t)j * s->ldd + i;
        if (gelu_bwd)
          each += dgelu_bound(us, eta, ua, k, g[at], mag[at], ref[at],
                              r->gelu_in[(size_t)j * s->aux_ld + i]);
        else if (oracle_mask_bit(r->aux_in, s->aux_ld, i, j))
          each += us * fabs(g[at]) + eta + 2.0 * (k + 2) * ua * mag[at];
        sum += fabs(ref[at]);
      }
      double bound = each + 2.0 * (n + 2) * U32 * (sum + each) +
                     us * (fabs(ref_bias_grad[i]) + each) + eta;
      ck_assert_msg(fabs(r->bias_grad[i] - ref_bias_grad[i]) <= bound,
                    "%s %s: db[%d] = %.9g, oracle %.9g, bound %.3g", label,
                    what, i, r->bias_grad[i], ref_bias_grad[i], bound);
    }
  /* BGRADB sums op(B) (k, n) over k, BGRADA op(A) (m, k): exact inputs
   * summed in FP32, rounded once. */
  int bgrada = s->epilogue == LT_EPILOGUE_BGRADA;
  if (s->epilogue == LT_EPILOGUE_BGRADB || bgrada)
    for (int j = 0; j < (bgrada ? m : n); j++) {
      double sum = 0;
      for (int p = 0; p < k; p++)
        sum += fabs(bgrada ? r->a[(size_t)p * s->lda + j]
                           : r->b[(size_t)p * s->ldb + j]);
      double bound = 2.0 * (k + 2) * U32 * sum * (1.0 + us) +
                     us * fabs(ref_bias_grad[j]) + eta;
      ck_assert_msg(fabs(r->bias_grad[j] - ref_bias_grad[j]) <= bound,
                    "%s %s: db[%d] = %.9g, oracle %.9g, bound %.3g", label,
                    what, j, r->bias_grad[j], ref_bias_grad[j], bound);
    }
  free(ref);
  free(g);
  free(mag);
  free(ref_bias_grad);
  free(ref_aux);
  free(ref_gelu);
  free(abs_a);
  free(abs_b);
  return skipped;
}
