/* test_mlp_fp8_train.c: the FP8 step (layers/mlp_fp8.h) on the GPU, beyond
 * its calls one by one (test_mlp_fp8.c):
 *   1. The whole step against the FP32 oracle (double precision, same
 *      weights and batch): each gradient within a normwise bound derived
 *      from the FP8 roundoffs (below).
 *   2. Training: the loss falls, the counters count.
 *   3. The wrapper refuses malformed FP8 calls before cuBLASLt sees them,
 *      and every FP8 shape its rules admit runs.
 * GPU only: skips (77) without one, or on a GPU without FP8 (below 8.9). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/lt_matmul.h"
#include "layers/mlp_fp8.h"
#include "layers/oracle.h"
#include "tests/test_batch.h"
#include "tests/test_gpu.h"
#include "tests/test_types.h"
#include "tests/test_util.h"

static uint64_t seed;

/* hybrid, delayed, fast accumulation in the forward GEMMs (the defaults);
 * all E4M3, current, fast accumulation everywhere. */
enum { RECIPES = 2 };
static const gpu_fp8_recipe recipes[RECIPES] = {{0, 0, 0}, {1, 1, 1}};

/* An FP8 network of `widths` (padded to 16), initialised from `init`. */
static mlp *fp8_network(gpu_context *ctx, const int *widths, int depth,
                        int max_batch, gpu_fp8_recipe recipe, uint64_t init) {
  mlp *net = NULL;
  mlp_options options = {.type = LT_DTYPE_BF16,
                         .pad_units = 1,
                         .pad_multiple = 16,
                         .fp8 = 1,
                         .fp8_recipe = recipe};
  ck_assert_int_eq(mlp_create(&net, widths, depth, max_batch, &options), 0);
  ck_assert_int_eq(mlp_init_params(net, ctx, init), 0);
  return net;
}

static gpu_context *fp8_context(void) {
  gpu_context *ctx = test_context(GPU_AUTOTUNE_EXACT, GPU_PRECISION_FP8);
  ck_assert_ptr_nonnull(ctx);
  return ctx;
}

/* ||a - b|| / ||b|| over count doubles (Frobenius). */
static double relative_error(const double *a, const double *b, size_t count) {
  double num = 0, den = 0;
  for (size_t i = 0; i < count; i++) {
    num += (a[i] - b[i]) * (a[i] - b[i]);
    den += b[i] * b[i];
  }
  return den > 0 ? sqrt(num / den) : sqrt(num);
}

/* The whole step against the FP32 oracle. The bound, first order in the
 * unit roundoffs u (2^-4 E4M3, 2^-3 E5M2): a weight gradient X^T dZ reads
 * X (u_x, after the forward's own u_w + u_x on the pre-activations that
 * set the masks and the loss gradient) and dZ (u_g, plus the data GEMMs'
 * u_w + u_g per layer above). Rounding errors of opposite sign average
 * out in a sum, so the normwise error of a whole layer sits far below the
 * elementwise worst case; the bound taken is the elementwise first-order
 * sum for the deepest layer, (depth) (u_w + u_x) + (depth) u_g, which a
 * wrong scale (a factor of 2 at least) or a wrong layout exceeds at once.
 * Measured values are printed. */
START_TEST(an_fp8_step_is_near_the_fp32_oracle) {
  /* Widths FP8 takes as they are (multiples of 16: no padding, so the
   * oracle's network is the GPU's, its 16 classes included). */
  int widths[4] = {784, 144, 112, 16}, depth = 3, n = 96;
  gpu_fp8_recipe recipe = recipes[_i];
  gpu_context *ctx = fp8_context();
  mlp *net = fp8_network(ctx, widths, depth, n, recipe, seed + 77);
  test_rng rng;
  test_rng_init(&rng, seed + 77);
  test_batch b = test_batch_make(&rng, 784, n, 16, LT_DTYPE_BF16);
  double *d_stats = test_upload(NULL, 2 * sizeof(double));
  test_fill_device(d_stats, 0, 2 * sizeof(double));
  ck_assert_int_eq(mlp_forward(net, ctx, b.d_x, n, MLP_MODE_FUSED), 0);
  ck_assert_int_eq(
      mlp_backward(net, ctx, b.d_x, b.d_labels, n, MLP_MODE_FUSED, d_stats), 0);
  const mlp_layout *lay = &net->layout;
  size_t slab = lay->slab_floats;
  double *grads = test_download_as(LT_DTYPE_BF16, net->d_grads, slab);
  float *master = malloc(slab * sizeof(float));
  test_download(master, net->d_params, slab * sizeof(float));
  double *params = malloc(slab * sizeof(double));
  for (size_t i = 0; i < slab; i++)
    params[i] = master[i];
  size_t x_count = (size_t)lt_ld(784) * n;
  double *x = malloc(x_count * sizeof(double));
  for (size_t i = 0; i < x_count; i++)
    x[i] = b.h_x[i];
  oracle_step want = {.grads = calloc(slab, sizeof(double))};
  ck_assert_int_eq(oracle_mlp_step(&want, lay, params, x, b.h_labels, n), 0);
  double uw = 0.0625, ux = 0.0625, ug = recipe.all_e4m3 ? 0.0625 : 0.125;
  double bound = depth * (uw + ux) + depth * ug;
  for (int l = 0; l < depth; l++) {
    size_t count = (size_t)lt_ld(lay->widths[l]) * lay->widths[l + 1];
    double ew = relative_error(grads + lay->w_offset[l],
                               want.grads + lay->w_offset[l], count);
    double eb =
        relative_error(grads + lay->b_offset[l], want.grads + lay->b_offset[l],
                       (size_t)lay->widths[l + 1]);
    printf("fp8 step %s/%s vs FP32 oracle, layer %d: weights %.4f, bias "
           "%.4f (bound %.4f)\n",
           recipe.all_e4m3 ? "e4m3" : "hybrid",
           recipe.current ? "current" : "delayed", l + 1, ew, eb, bound);
    ck_assert_msg(ew <= bound && eb <= bound,
                  "layer %d: weights %.4f, bias %.4f, bound %.4f", l, ew, eb,
                  bound);
  }
  free(want.grads);
  free(grads);
  free(master);
  free(params);
  free(x);
  test_free(d_stats);
  test_batch_free(&b);
  mlp_destroy(net);
  gpu_context_destroy(ctx);
}
END_TEST

/* Training in FP8 learns, and counts: 40 steps on one batch halve the loss
 * in both recipes; every cast ran once per step. */
START_TEST(fp8_training_learns) {
  int widths[3] = {784, 100, 10};
  enum { N = 256, STEPS = 40 };
  gpu_context *ctx = fp8_context();
  mlp *net = fp8_network(ctx, widths, 2, N, recipes[_i], seed);
  test_rng rng;
  test_rng_init(&rng, seed);
  test_batch b = test_batch_make(&rng, 784, N, 10, LT_DTYPE_BF16);
  double *d_stats = test_upload(NULL, 2 * STEPS * sizeof(double));
  test_fill_device(d_stats, 0, 2 * STEPS * sizeof(double));
  const float lr = 0.05f;
  float *d_lr = test_upload(&lr, sizeof lr);
  for (int s = 0; s < STEPS; s++)
    ck_assert_int_eq(mlp_train_step(net, ctx, b.d_x, b.d_labels, N,
                                    MLP_MODE_FUSED, d_lr, 0.9f,
                                    d_stats + 2 * s),
                     0);
  double stats[2 * STEPS];
  test_download(stats, d_stats, sizeof stats);
  ck_assert_msg(stats[2 * (STEPS - 1)] < 0.5 * stats[0],
                "loss %g -> %g: FP8 training does not learn", stats[0] / N,
                stats[2 * (STEPS - 1)] / N);
  fp8_meta meta[6];
  ck_assert_int_eq(mlp_fp8_read_meta(net, ctx, meta), 0);
  for (int t = 0; t < 6; t++) {
    /* weights: the initial cast and one per step; the rest: one per step */
    unsigned want = t % 3 == MLP_FP8_WEIGHTS ? STEPS + 1 : STEPS;
    ck_assert_uint_eq(meta[t].casts, want);
    ck_assert_uint_eq(meta[t].bad_amax, 0);
    ck_assert_uint_eq(meta[t].nan, 0);
    ck_assert(meta[t].scale > 0.0f);
  }
  test_free(d_stats);
  test_free(d_lr);
  test_batch_free(&b);
  mlp_destroy(net);
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

/* Every FP8 shape the rules admit (gpu/lt_shape.h: m and k multiples of
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
  test_require_fp8("mlp_fp8_train");
  seed = test_seed("mlp_fp8_train");
  Suite *suite = suite_create("mlp_fp8_train");
  TCase *tc = tcase_create("fp8");
  tcase_set_timeout(tc, 900);
  tcase_add_loop_test(tc, an_fp8_step_is_near_the_fp32_oracle, 0, RECIPES);
  tcase_add_loop_test(tc, fp8_training_learns, 0, RECIPES);
  tcase_add_test(tc, malformed_fp8_calls_are_refused);
  tcase_add_test(tc, fp8_shapes_the_rules_admit_run);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 1);
}
