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
  test_require_fp8("mlp_fp8_train");
  seed = test_seed("mlp_fp8_train");
  Suite *suite = suite_create("mlp_fp8_train");
  TCase *tc = tcase_create("fp8");
  tcase_set_timeout(tc, 900);
  tcase_add_loop_test(tc, an_fp8_step_is_near_the_fp32_oracle, 0, RECIPES);
  tcase_add_loop_test(tc, fp8_training_learns, 0, RECIPES);
  tcase_add_test(tc, first_pass_scales_from_its_own_amax);
  tcase_add_test(tc, fp8_gemms_are_exact_on_small_integers);
  tcase_add_test(tc, malformed_fp8_calls_are_refused);
  tcase_add_test(tc, fp8_shapes_the_rules_admit_run);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 1);
}
