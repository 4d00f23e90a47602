/* test_oracle.c: the plain-C oracle against central finite differences of
 * its own loss, in double precision. Every parameter gradient of a small
 * MLP (biases included) is checked, except at points where the step would
 * flip a ReLU bit (the loss is not differentiable at the kink). */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "layers/oracle.h"
#include "tests/test_util.h"

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
  enum { CASES = sizeof cases / sizeof cases[0] };
  const net_case *c = &cases[_i % CASES];
  /* ReLU, then GELU (smooth: no kinks to skip). */
  lt_activation act = _i < CASES ? LT_ACTIVATION_RELU : LT_ACTIVATION_GELU;
  mlp_layout layout;
  char err[128];
  ck_assert_int_eq(
      mlp_layout_init(&layout, c->widths, c->depth, err, sizeof err), 0);
  test_rng rng;
  test_rng_init(&rng, seed + (uint64_t)_i);
  double *params = calloc(layout.slab_floats, sizeof(double));
  double *grads = calloc(layout.slab_floats, sizeof(double));
  double *scratch = calloc(layout.slab_floats, sizeof(double));
  /* x and the weights with the builders' leading dimensions (lt_ld); the
   * padding is filled too: no call may read it. */
  size_t x_count = (size_t)lt_ld(c->widths[0]) * c->n;
  double *x = malloc(x_count * sizeof(double));
  int *labels = malloc((size_t)c->n * sizeof(int));
  size_t mask_bytes = oracle_mask_bytes(&layout, c->n) + 1;
  uint8_t *mask0 = calloc(mask_bytes, 1), *mask1 = calloc(mask_bytes, 1);
  for (int l = 0; l < c->depth; l++) {
    size_t count = (size_t)lt_ld(c->widths[l]) * c->widths[l + 1];
    for (size_t i = 0; i < count; i++)
      params[layout.w_offset[l] + i] = test_rng_uniform(&rng, -1, 1);
    for (int i = 0; i < c->widths[l + 1]; i++)
      params[layout.b_offset[l] + i] = test_rng_uniform(&rng, -0.5, 0.5);
  }
  for (size_t i = 0; i < x_count; i++)
    x[i] = test_rng_uniform(&rng, -1, 1);
  for (int j = 0; j < c->n; j++)
    labels[j] = (int)(test_rng_next(&rng) % c->widths[c->depth]);
  oracle_step base = {.grads = grads, .masks = mask0, .activation = act};
  ck_assert_int_eq(oracle_mlp_step(&base, &layout, params, x, labels, c->n), 0);
  int checked = 0, skipped = 0;
  for (int l = 0; l < c->depth; l++) {
    /* Padding rows included: their gradient and finite difference are 0. */
    size_t count = (size_t)lt_ld(c->widths[l]) * c->widths[l + 1];
    size_t ranges[2][2] = {{layout.w_offset[l], count},
                           {layout.b_offset[l], (size_t)c->widths[l + 1]}};
    for (int r = 0; r < 2; r++)
      for (size_t i = ranges[r][0]; i < ranges[r][0] + ranges[r][1]; i++) {
        double saved = params[i];
        int kink = 0;
        oracle_step plus = {
            .grads = scratch, .masks = mask1, .activation = act};
        oracle_step minus = {
            .grads = scratch, .masks = mask1, .activation = act};
        params[i] = saved + FD_STEP;
        oracle_mlp_step(&plus, &layout, params, x, labels, c->n);
        kink |= memcmp(mask0, mask1, mask_bytes) != 0;
        params[i] = saved - FD_STEP;
        oracle_mlp_step(&minus, &layout, params, x, labels, c->n);
        kink |= memcmp(mask0, mask1, mask_bytes) != 0;
        params[i] = saved;
        if (kink) {
          skipped++;
          continue;
        }
        /* The oracle's loss is the batch sum; its gradient is of the mean. */
        double numeric =
            (plus.loss_sum - minus.loss_sum) / (2 * FD_STEP) / c->n;
        ck_assert_msg(
            fabs(grads[i] - numeric) <= FD_ATOL + FD_RTOL * fabs(numeric),
            "layer %d slab[%zu]: oracle %.10g, finite difference %.10g", l, i,
            grads[i], numeric);
        checked++;
      }
  }
  ck_assert_msg(checked > 10 * skipped,
                "too many kinks: %d checked, %d skipped", checked, skipped);
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
  for (int i = 0; i < K * N; i++)
    b[i] = 1.0;
  for (int i = 0; i < M; i++)
    bias[i] = i % 3 == 0 ? 0.0 : (i % 3 == 1 ? 1.0 : -1.0);
  /* Unpadded leading dimensions (any ld >= the rows is a valid shape). */
  lt_shape shape = lt_shape_forward(K, M, N, 1);
  shape.lda = K;
  shape.ldb = K;
  shape.ldd = M;
  oracle_call call = {
      .shape = shape, .a = a, .b = b, .d = d, .bias = bias, .aux = aux};
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
    for (int byte = 2; byte < 16; byte++)
      ck_assert_int_eq(aux[j * 16 + byte], 0xA5);
  }
}
END_TEST

START_TEST(xent_gradient_sums_to_zero) {
  double logits[6] = {1, 2, 3, -1, 0, 1000}, grad[6];
  int labels[2] = {2, 0}, correct = 0;
  double loss = oracle_xent(grad, &correct, logits, 3, labels, 3, 2);
  ck_assert(isfinite(loss));
  ck_assert_int_eq(correct, 1);
  for (int j = 0; j < 2; j++)
    ck_assert(fabs(grad[3 * j] + grad[3 * j + 1] + grad[3 * j + 2]) < 1e-15);
  ck_assert(fabs(loss - (log(exp(-2) + exp(-1) + 1) + 1001)) < 1e-9);
}
END_TEST

/* The builders make the calls of docs/backprop.md, "Every call of a step";
 * every one passes cuBLASLt's shape rules; broken shapes are named. */
START_TEST(shape_builders_follow_the_recipe) {
  int sizes[][3] = {{784, 100, 256}, {1, 1, 1}, {129, 7, 96}, {100, 10, 1}};
  char why[256];
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    int in = sizes[i][0], out = sizes[i][1], n = sizes[i][2];
    lt_shape f = lt_shape_forward(in, out, n, 1);
    ck_assert(f.m == out && f.n == n && f.k == in && f.transa && !f.transb);
    /* Leading dimensions: the rows rounded up to 8 (16 bytes in 16-bit). */
    ck_assert(f.lda == lt_ld(in) && f.ldd == lt_ld(out) && f.lda % 8 == 0 &&
              f.lda >= in && f.lda < in + 8 && f.type == LT_DTYPE_F32);
    ck_assert_int_eq(f.aux_ld, lt_aux_ld(out));
    lt_shape d = lt_shape_backward_data(in, out, n);
    ck_assert(d.m == in && d.n == n && d.k == out && !d.transa && !d.transb);
    ck_assert(d.epilogue == LT_EPILOGUE_DRELU_BGRAD &&
              d.aux_ld == lt_aux_ld(in));
    lt_shape w = lt_shape_backward_weights(in, out, n, 1);
    ck_assert(w.m == in && w.n == out && w.k == n && !w.transa && w.transb);
    ck_assert_int_eq(lt_bias_grad_length(&w), out);
    lt_shape all[4] = {f, lt_shape_forward(in, out, n, 0), d, w};
    for (int k = 0; k < 4; k++)
      ck_assert_msg(lt_shape_check(&all[k], why, sizeof why) == 0, "%s", why);
  }
  lt_shape bad = lt_shape_backward_weights(5, 3, 2, 1);
  bad.transb = 0;
  bad.ldb = 2;
  ck_assert_int_eq(lt_shape_check(&bad, why, sizeof why), -1);
  ck_assert_ptr_nonnull(strstr(why, "transb = T"));
  bad = lt_shape_forward(5, 200, 2, 1);
  bad.aux_ld = 128;
  ck_assert_int_eq(lt_shape_check(&bad, why, sizeof why), -1);
  ck_assert_ptr_nonnull(strstr(why, ">= m = 200"));
  bad = lt_shape_forward(5, 3, 2, 0);
  bad.aux_ld = 128;
  ck_assert_int_eq(lt_shape_check(&bad, why, sizeof why), -1);
  ck_assert_ptr_nonnull(strstr(why, "expected aux_ld 0"));
}
END_TEST

/* The optional outputs of a step agree with each other: mask bit = !(z <
 * 0) for every pre-activation, and the loss is the cross-entropy of the
 * logits returned. */
START_TEST(step_outputs_agree) {
  int widths[4] = {11, 9, 6, 4};
  enum { N = 5 };
  mlp_layout layout;
  char err[128];
  ck_assert_int_eq(mlp_layout_init(&layout, widths, 3, err, sizeof err), 0);
  test_rng rng;
  test_rng_init(&rng, seed);
  double *params = calloc(layout.slab_floats, sizeof(double));
  double x[16 * N], logits[8 * N]; /* ld lt_ld(11) = 16, lt_ld(4) = 8 */
  int labels[N];
  for (size_t i = 0; i < layout.slab_floats; i++)
    params[i] = test_rng_uniform(&rng, -1, 1);
  for (int i = 0; i < 16 * N; i++)
    x[i] = test_rng_uniform(&rng, -1, 1);
  for (int j = 0; j < N; j++)
    labels[j] = (int)(test_rng_next(&rng) % 4);
  oracle_step out = {
      .grads = calloc(layout.slab_floats, sizeof(double)),
      .masks = calloc(oracle_mask_bytes(&layout, N), 1),
      .preacts = calloc(oracle_preact_count(&layout, N), sizeof(double)),
      .logits = logits};
  ck_assert_int_eq(oracle_mlp_step(&out, &layout, params, x, labels, N), 0);
  ck_assert_int_eq(oracle_preact_count(&layout, N), (16 + 8) * N);
  const uint8_t *mask = out.masks;
  const double *z = out.preacts;
  for (int l = 0; l < 2; l++) {
    int rows = widths[l + 1], ld = lt_ld(rows);
    for (int j = 0; j < N; j++)
      for (int i = 0; i < rows; i++)
        ck_assert_int_eq(oracle_mask_bit(mask, lt_aux_ld(rows), i, j),
                         !(z[j * ld + i] < 0));
    mask += lt_aux_bytes(rows, N);
    z += ld * N;
  }
  int correct = 0;
  double loss = oracle_xent(NULL, &correct, logits, 8, labels, 4, N);
  ck_assert(loss == out.loss_sum && correct == out.correct);
  ck_assert_int_eq(out.decisions_differ, 0);
  /* Given decisions: its own change nothing; one flipped bit is counted,
   * changes the gradients, and the masks reported stay the oracle's own. */
  size_t mask_bytes = oracle_mask_bytes(&layout, N);
  uint8_t *own = malloc(mask_bytes), *flipped = malloc(mask_bytes);
  memcpy(own, out.masks, mask_bytes);
  memcpy(flipped, own, mask_bytes);
  /* Unit 0, sample 0 of the last hidden layer (no ReLU after it to
   * change). */
  flipped[lt_aux_bytes(9, N)] ^= 1;
  double *grads = malloc(layout.slab_floats * sizeof(double));
  memcpy(grads, out.grads, layout.slab_floats * sizeof(double));
  out.decisions = own;
  ck_assert_int_eq(oracle_mlp_step(&out, &layout, params, x, labels, N), 0);
  ck_assert_int_eq(out.decisions_differ, 0);
  ck_assert_mem_eq(grads, out.grads, layout.slab_floats * sizeof(double));
  out.decisions = flipped;
  ck_assert_int_eq(oracle_mlp_step(&out, &layout, params, x, labels, N), 0);
  ck_assert_int_eq(out.decisions_differ, 1);
  ck_assert(memcmp(grads, out.grads, layout.slab_floats * sizeof(double)) != 0);
  ck_assert_mem_eq(own, out.masks, mask_bytes);
  free(own);
  free(flipped);
  free(grads);
  free(params);
  free(out.grads);
  free(out.masks);
  free(out.preacts);
}
END_TEST

/* The GELU of the oracle: its derivative against central differences, its
 * limits (GELU(z) -> z and 0 far out, GELU(0) = 0), and its distance to
 * the erf form, which it approximates within 5e-4 (the tanh form's known
 * error; cuBLASLt's choice between the two is measured in test_lt_gelu). */
START_TEST(gelu_and_its_derivative) {
  double worst = 0.0;
  for (double z = -8.0; z <= 8.0; z += 0.0625) {
    double h = 1e-5;
    double numeric = (oracle_gelu(z + h) - oracle_gelu(z - h)) / (2 * h);
    ck_assert_msg(fabs(oracle_gelu_grad(z) - numeric) <= 1e-8,
                  "GELU'(%g) = %.12g, difference %.12g", z, oracle_gelu_grad(z),
                  numeric);
    double exact = 0.5 * z * (1.0 + erf(z / sqrt(2.0)));
    worst = fmax(worst, fabs(oracle_gelu(z) - exact));
  }
  ck_assert(oracle_gelu(0.0) == 0.0);
  ck_assert(fabs(oracle_gelu(10.0) - 10.0) < 1e-12);
  ck_assert(fabs(oracle_gelu(-10.0)) < 1e-12);
  ck_assert_msg(worst > 1e-5 && worst < 5e-4, "tanh vs erf GELU: %g", worst);
}
END_TEST

/* Parameters between a padded layout (784-104-16 style: 7-8-8 here) and
 * the real one (7-5-3): the real units map both ways, rows and columns,
 * and the padded units stay as they were (zero). */
START_TEST(params_copy_between_layouts) {
  int real_w[3] = {7, 5, 3}, padded_w[3] = {7, 8, 8};
  mlp_layout real, padded;
  char err[128];
  ck_assert_int_eq(mlp_layout_init(&real, real_w, 2, err, sizeof err), 0);
  ck_assert_int_eq(mlp_layout_init(&padded, padded_w, 2, err, sizeof err), 0);
  float *a = calloc(real.slab_floats, sizeof(float));
  float *p = calloc(padded.slab_floats, sizeof(float));
  float *back = calloc(real.slab_floats, sizeof(float));
  for (int l = 0; l < 2; l++)
    for (int o = 0; o < real_w[l + 1]; o++) {
      for (int i = 0; i < real_w[l]; i++)
        a[real.w_offset[l] + (size_t)o * lt_ld(real_w[l]) + i] =
            (float)(100 * l + 10 * o + i + 1);
      a[real.b_offset[l] + o] = (float)(-100 * l - o - 1);
    }
  mlp_layout_copy_params(&padded, p, &real, a);
  for (int l = 0; l < 2; l++)
    for (int o = 0; o < padded_w[l + 1]; o++) {
      for (int i = 0; i < padded_w[l]; i++) {
        float want = o < real_w[l + 1] && i < real_w[l]
                         ? (float)(100 * l + 10 * o + i + 1)
                         : 0.0f;
        ck_assert_msg(
            p[padded.w_offset[l] + (size_t)o * lt_ld(padded_w[l]) + i] == want,
            "layer %d W[%d][%d]", l, o, i);
      }
      ck_assert(p[padded.b_offset[l] + o] ==
                (o < real_w[l + 1] ? (float)(-100 * l - o - 1) : 0.0f));
    }
  mlp_layout_copy_params(&real, back, &padded, p);
  ck_assert_mem_eq(back, a, real.slab_floats * sizeof(float));
  free(a);
  free(p);
  free(back);
}
END_TEST

int main(void) {
  seed = test_seed("oracle");
  Suite *suite = suite_create("oracle");
  TCase *tc = tcase_create("oracle");
  tcase_set_timeout(tc, 120);
  tcase_add_loop_test(tc, gradients_match_finite_differences, 0,
                      2 * (int)(sizeof cases / sizeof cases[0]));
  tcase_add_test(tc, gelu_and_its_derivative);
  tcase_add_test(tc, params_copy_between_layouts);
  tcase_add_test(tc, relu_mask_layout_and_zero_rule);
  tcase_add_test(tc, xent_gradient_sums_to_zero);
  tcase_add_test(tc, shape_builders_follow_the_recipe);
  tcase_add_test(tc, step_outputs_agree);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 0);
}
