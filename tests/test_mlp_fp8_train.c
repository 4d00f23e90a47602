/* test_mlp_fp8_train.c: the FP8 step (layers/mlp_fp8.h) on the GPU, beyond
 * its calls one by one (test_mlp_fp8.c):
 *   1. The whole step against the FP32 oracle (double precision, same
 *      weights and batch): each gradient within a normwise bound derived
 *      from the FP8 roundoffs (below).
 *   2. Training: the loss falls, the counters count.
 * The wrapper's FP8 GEMMs alone: test_lt_fp8.c.
 * GPU only: skips (77) without one, or on a GPU without FP8 (below 8.9). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layers/fp8.h"
#include "layers/mlp_fp8.h"
#include "layers/oracle.h"
#include "lt/lt_matmul.h"
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

/* The whole step against the FP32 oracle (under the GPU's ReLU decisions),
 * normwise per gradient. The bound: one unit roundoff of each FP8 operand kind
 * the gradient is made of, u_w + u_x + u_g (2^-4 E4M3, 2^-3 E5M2: 0.25 hybrid,
 * 0.1875 all E4M3). Elementwise, a gradient deep in the network accumulates
 * more (the forward's roundings reach the loss gradient, the data GEMMs' those
 * below); normwise, independent round-to-nearest errors average out in
 * every sum, so one roundoff of each kind is what a layer's error stays
 * under (measured values are printed). A scale off by a factor of 2 gives
 * 0.5, a wrong layout about 1: both fail. */
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
  /* The GPU's ReLU decisions: where an FP8 pre-activation lies within its
   * roundoff of 0 the two may decide differently, and a flipped unit
   * passes its whole gradient or none (measured on the H200: with the
   * oracle's own decisions the first layer's weight gradient is 0.27 off
   * normwise, the flips, not the roundoff). */
  size_t mask_bytes = oracle_mask_bytes(lay, n);
  uint8_t *decisions = malloc(mask_bytes), *at = decisions;
  for (int l = 0; l + 1 < depth; l++) {
    test_download(at, net->layers[l].d_aux,
                  lt_aux_bytes(lay->widths[l + 1], n));
    at += lt_aux_bytes(lay->widths[l + 1], n);
  }
  oracle_step want = {.grads = calloc(slab, sizeof(double)),
                      .masks = malloc(mask_bytes),
                      .decisions = decisions};
  ck_assert_int_eq(oracle_mlp_step(&want, lay, params, x, b.h_labels, n), 0);
  double uw = 0.0625, ux = 0.0625, ug = recipe.all_e4m3 ? 0.0625 : 0.125;
  double bound = uw + ux + ug;
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
  printf("fp8 step: %d ReLU decisions of the oracle's differ from the GPU's "
         "(the GPU's taken)\n",
         want.decisions_differ);
  free(want.grads);
  free(want.masks);
  free(decisions);
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

/* Delayed scaling never casts from an empty history: a fresh network's
 * first training pass casts its inputs and gradients with their own amax
 * and leaves it in the history, so every X and dZ tensor then has a
 * non-zero history and the scale fp8_scale_from_amax gives for it (before
 * the fix the first passes cast at scale 1: 95 % of the hidden gradients
 * of 784-4096-4096-10 flushed to zero). */
START_TEST(first_pass_scales_from_its_own_amax) {
  int widths[4] = {784, 144, 112, 16};
  enum { N = 96 };
  gpu_context *ctx = fp8_context();
  mlp *net = fp8_network(ctx, widths, 3, N, recipes[0], seed + 5);
  test_rng rng;
  test_rng_init(&rng, seed + 5);
  test_batch b = test_batch_make(&rng, 784, N, 16, LT_DTYPE_BF16);
  double *d_stats = test_upload(NULL, 2 * sizeof(double));
  test_fill_device(d_stats, 0, 2 * sizeof(double));
  ck_assert_int_eq(mlp_forward(net, ctx, b.d_x, N, MLP_MODE_FUSED), 0);
  ck_assert_int_eq(
      mlp_backward(net, ctx, b.d_x, b.d_labels, N, MLP_MODE_FUSED, d_stats), 0);
  fp8_meta meta[9];
  ck_assert_int_eq(mlp_fp8_read_meta(net, ctx, meta), 0);
  for (int t = 0; t < 9; t++) {
    if (t % 3 == MLP_FP8_WEIGHTS) continue;
    float amax = 0.0f, want = 1.0f;
    for (int h = 0; h < FP8_HISTORY; h++)
      amax = fmaxf(amax, meta[t].history[h]);
    fp8_format format = t % 3 == MLP_FP8_GRADIENT ? mlp_fp8_gradient_format(net)
                                                  : FP8_FORMAT_E4M3;
    ck_assert_int_eq(fp8_scale_from_amax(&want, amax, format, NULL, 0), 0);
    ck_assert_msg(amax > 0.0f && meta[t].scale == want,
                  "tensor %d: scale %g, history amax %g (want scale %g)", t,
                  meta[t].scale, amax, want);
  }
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

int main(void) {
  test_require_fp8("mlp_fp8_train");
  seed = test_seed("mlp_fp8_train");
  Suite *suite = suite_create("mlp_fp8_train");
  TCase *tc = tcase_create("fp8");
  tcase_set_timeout(tc, 900);
  tcase_add_loop_test(tc, an_fp8_step_is_near_the_fp32_oracle, 0, RECIPES);
  tcase_add_loop_test(tc, fp8_training_learns, 0, RECIPES);
  tcase_add_test(tc, first_pass_scales_from_its_own_amax);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 1);
}
