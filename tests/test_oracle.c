/* test_oracle.c: the plain-C oracle against central finite differences of
 * its own loss, in double precision. Every parameter gradient of a small
 * MLP (biases included) is checked, except at points where the step would
 * flip a ReLU bit (the loss is not differentiable at the kink). */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "layers/oracle.h"
#include "test_util.h"

/* Central differences in double with h = 1e-5 have truncation error
 * ~h^2 * f''' ~ 1e-10 and rounding error ~1e-16 / h ~ 1e-11 relative to
 * the loss: 1e-6 absolute + 1e-5 relative leaves two orders of headroom,
 * while a wrong formula is off by O(|g|). */
#define FD_STEP 1e-5
#define FD_ATOL 1e-6
#define FD_RTOL 1e-5

static uint64_t seed;

typedef struct net_case {
  int widths[5];
  int depth;
  int n;
} net_case;

static const net_case cases[] = {
    {{7, 5, 3}, 2, 4},
    {{13, 9, 6, 4}, 3, 7},
    {{5, 3}, 1, 3},
    {{9, 129, 10}, 2, 2},
};

START_TEST(gradients_match_finite_differences) {
  const net_case *c = &cases[_i];
  mlp_layout layout;
  char err[128];
  ck_assert_int_eq(mlp_layout_init(&layout, c->widths, c->depth, err, sizeof err), 0);
  test_rng rng;
  test_rng_init(&rng, seed + (uint64_t)_i);
  double *params = calloc(layout.slab_floats, sizeof(double));
  double *grads = calloc(layout.slab_floats, sizeof(double));
  double *scratch = calloc(layout.slab_floats, sizeof(double));
  double *x = malloc((size_t)c->widths[0] * c->n * sizeof(double));
  int *labels = malloc((size_t)c->n * sizeof(int));
  size_t mask_bytes = oracle_mask_bytes(&layout, c->n) + 1;
  uint8_t *mask0 = calloc(mask_bytes, 1), *mask1 = calloc(mask_bytes, 1);
  for (int l = 0; l < c->depth; l++) {
    size_t count = (size_t)c->widths[l] * c->widths[l + 1];
    for (size_t i = 0; i < count; i++)
      params[layout.w_offset[l] + i] = test_rng_uniform(&rng, -1, 1);
    for (int i = 0; i < c->widths[l + 1]; i++)
      params[layout.b_offset[l] + i] = test_rng_uniform(&rng, -0.5, 0.5);
  }
  for (int i = 0; i < c->widths[0] * c->n; i++) x[i] = test_rng_uniform(&rng, -1, 1);
  for (int j = 0; j < c->n; j++) labels[j] = (int)(test_rng_next(&rng) % c->widths[c->depth]);
  double loss = 0;
  int correct = 0;
  ck_assert_int_eq(oracle_mlp_step(grads, &loss, &correct, mask0, &layout,
                                   params, x, labels, c->n), 0);
  int checked = 0, skipped = 0;
  for (int l = 0; l < c->depth; l++) {
    size_t count = (size_t)c->widths[l] * c->widths[l + 1];
    size_t ranges[2][2] = {{layout.w_offset[l], count},
                           {layout.b_offset[l], (size_t)c->widths[l + 1]}};
    for (int r = 0; r < 2; r++)
      for (size_t i = ranges[r][0]; i < ranges[r][0] + ranges[r][1]; i++) {
        double saved = params[i], plus = 0, minus = 0;
        int kink = 0;
        params[i] = saved + FD_STEP;
        oracle_mlp_step(scratch, &plus, &correct, mask1, &layout, params, x, labels, c->n);
        kink |= memcmp(mask0, mask1, mask_bytes) != 0;
        params[i] = saved - FD_STEP;
        oracle_mlp_step(scratch, &minus, &correct, mask1, &layout, params, x, labels, c->n);
        kink |= memcmp(mask0, mask1, mask_bytes) != 0;
        params[i] = saved;
        if (kink) {
          skipped++;
          continue;
        }
        /* The oracle's loss is the batch sum; its gradient is of the mean. */
        double numeric = (plus - minus) / (2 * FD_STEP) / c->n;
        ck_assert_msg(fabs(grads[i] - numeric) <= FD_ATOL + FD_RTOL * fabs(numeric),
                      "layer %d slab[%zu]: oracle %.10g, finite difference %.10g",
                      l, i, grads[i], numeric);
        checked++;
      }
  }
  ck_assert_msg(checked > 10 * skipped, "too many kinks: %d checked, %d skipped",
                checked, skipped);
  free(params);
  free(grads);
  free(scratch);
  free(x);
  free(labels);
  free(mask0);
  free(mask1);
}
END_TEST

/* The mask uses >= 0 and the documented bit layout; padding bits beyond m
 * are left alone. */
START_TEST(relu_mask_layout_and_zero_rule) {
  enum { M = 9, N = 3, K = 2 };
  int aux_ld = lt_aux_ld(M);
  ck_assert_int_eq(aux_ld, 128);
  double a[K * M] = {0}, b[K * N], d[M * N], bias[M];
  uint8_t aux[128 / 8 * N];
  memset(aux, 0xA5, sizeof aux);
  for (int i = 0; i < K * N; i++) b[i] = 1.0;
  for (int i = 0; i < M; i++) bias[i] = i % 3 == 0 ? 0.0 : (i % 3 == 1 ? 1.0 : -1.0);
  oracle_call call = {M, N, K, 1, 0, a, K, b, K, d, M, LT_EPILOGUE_RELU_AUX_BIAS,
                      bias, aux, aux_ld};
  oracle_matmul(&call);
  for (int j = 0; j < N; j++)
    for (int i = 0; i < M; i++) {
      int want = bias[i] >= 0.0; /* an exact zero passes */
      ck_assert_int_eq(oracle_mask_bit(aux, aux_ld, i, j), want);
      ck_assert_int_eq((aux[j * 16 + i / 8] >> (i % 8)) & 1, want);
      ck_assert(d[j * M + i] == (want ? bias[i] : 0.0));
    }
  for (int j = 0; j < N; j++) {
    ck_assert_int_eq(aux[j * 16 + 1] & 0xFE, 0xA5 & 0xFE); /* bits 9..15 */
    for (int byte = 2; byte < 16; byte++) ck_assert_int_eq(aux[j * 16 + byte], 0xA5);
  }
}
END_TEST

START_TEST(xent_gradient_sums_to_zero) {
  double logits[6] = {1, 2, 3, -1, 0, 1000}, grad[6];
  int labels[2] = {2, 0}, correct = 0;
  double loss = oracle_xent(grad, &correct, logits, labels, 3, 2);
  ck_assert(isfinite(loss));
  ck_assert_int_eq(correct, 1);
  for (int j = 0; j < 2; j++)
    ck_assert(fabs(grad[3 * j] + grad[3 * j + 1] + grad[3 * j + 2]) < 1e-15);
  ck_assert(fabs(loss - (log(exp(-2) + exp(-1) + 1) + 1001)) < 1e-9);
}
END_TEST

int main(void) {
  seed = test_seed("oracle");
  Suite *suite = suite_create("oracle");
  TCase *tc = tcase_create("oracle");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, gradients_match_finite_differences, 0,
                      (int)(sizeof cases / sizeof cases[0]));
  tcase_add_test(tc, relu_mask_layout_and_zero_rule);
  tcase_add_test(tc, xent_gradient_sums_to_zero);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 0);
}
