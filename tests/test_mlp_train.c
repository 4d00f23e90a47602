/* test_mlp_train.c: training steps on the GPU: identical runs give
 * bitwise identical parameters in every storage type (and exact
 * autotuning the heuristic's numbers); training drives the loss down on a
 * fixed synthetic task in every mode and precision; the SGD kernel follows
 * its formula; a NaN weight reaches the loss in both modes. GPU only:
 * skips (77) without one. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layers/mlp.h"
#include "layers/sgd.h"
#include "tests/test_batch.h"
#include "tests/test_gpu.h"
#include "tests/test_types.h"
#include "tests/test_util.h"

static uint64_t seed;

/* Runs `steps` training steps from `run_seed`; returns the parameters. */
static float *train_params(uint64_t run_seed, int steps, mlp_mode mode,
                           gpu_autotune autotune, gpu_precision precision,
                           size_t *slab) {
  int widths[4] = {784, 129, 100, 10};
  gpu_context *ctx = test_context(autotune, precision);
  ck_assert_ptr_nonnull(ctx);
  lt_dtype type = lt_precision_dtype(precision);
  mlp *net = NULL;
  ck_assert_int_eq(
      mlp_create(&net, widths, 3, 96, &(mlp_options){.type = type}), 0);
  ck_assert_int_eq(mlp_init_params(net, ctx, run_seed), 0);
  test_rng rng;
  test_rng_init(&rng, run_seed);
  test_batch b = test_batch_make(&rng, 784, 96, 10, type);
  double *d_stats = test_upload(NULL, 2 * sizeof(double));
  test_fill_device(d_stats, 0, 2 * sizeof(double));
  const float lr = 0.05f;
  float *d_lr = test_upload(&lr, sizeof lr);
  for (int s = 0; s < steps; s++)
    ck_assert_int_eq(mlp_train_step(net, ctx, b.d_x, b.d_labels,
                                    s % 2 ? 96 : 61, mode, d_lr, 0.9f, d_stats),
                     0);
  *slab = net->layout.slab_floats;
  float *params = malloc(*slab * sizeof(float));
  test_download(params, net->d_params, *slab * sizeof(float));
  test_free(d_stats);
  test_free(d_lr);
  test_batch_free(&b);
  mlp_destroy(net);
  gpu_context_destroy(ctx);
  return params;
}

/* Fused and unfused in FP32, BF16 and FP16 (auto follows timing: its runs
 * repeat only when its choices do). */
START_TEST(identical_runs_are_bitwise_identical) {
  mlp_mode mode = _i % 2 ? MLP_MODE_UNFUSED : MLP_MODE_FUSED;
  const gpu_precision precisions[3] = {GPU_PRECISION_FP32, GPU_PRECISION_BF16,
                                       GPU_PRECISION_FP16};
  gpu_precision p = precisions[_i / 2];
  size_t slab = 0, slab2 = 0;
  float *first = train_params(seed, 20, mode, GPU_AUTOTUNE_EXACT, p, &slab);
  float *second = train_params(seed, 20, mode, GPU_AUTOTUNE_EXACT, p, &slab2);
  ck_assert_int_eq(slab, slab2);
  ck_assert_msg(memcmp(first, second, slab * sizeof(float)) == 0,
                "mode %d: two runs from seed %llu differ", _i,
                (unsigned long long)seed);
  /* And training moved them: the test is not comparing two untouched
   * initialisations. */
  float *start = train_params(seed, 0, mode, GPU_AUTOTUNE_EXACT, p, &slab2);
  ck_assert(memcmp(first, start, slab * sizeof(float)) != 0);
  /* Exact autotuning never changes the numbers: the heuristic's first
   * choice gives the same parameters bit for bit. */
  float *untuned = train_params(seed, 20, mode, GPU_AUTOTUNE_OFF, p, &slab2);
  ck_assert_msg(memcmp(first, untuned, slab * sizeof(float)) == 0,
                "mode %d: exact autotune changed the numbers", _i);
  free(first);
  free(second);
  free(start);
  free(untuned);
}
END_TEST

/* A fixed synthetic task: 10 Gaussian clusters in 20 dimensions. A few
 * hundred steps must take the mean loss from ~2.3 to well under a third. */
START_TEST(training_drives_the_loss_down) {
  enum { FEATURES = 20, LD = 24 /* lt_ld(20) */, N = 128, STEPS = 300 };
  enum { CLASSES = 10 };
  const mlp_mode modes[3] = {MLP_MODE_FUSED, MLP_MODE_UNFUSED, MLP_MODE_AUTO};
  mlp_mode mode = modes[_i % 3];
  gpu_precision precision = (gpu_precision)(_i / 3);
  lt_dtype type = lt_precision_dtype(precision);
  int widths[4] = {FEATURES, 64, 64, CLASSES};
  gpu_context *ctx = test_context(GPU_AUTOTUNE_EXACT, precision);
  ck_assert_ptr_nonnull(ctx);
  mlp *net = NULL;
  ck_assert_int_eq(mlp_create(&net, widths, 3, N, &(mlp_options){.type = type}),
                   0);
  ck_assert_int_eq(mlp_init_params(net, ctx, 7), 0);
  test_rng rng;
  test_rng_init(&rng, 12345);
  float centers[CLASSES][FEATURES];
  for (int c = 0; c < CLASSES; c++)
    for (int f = 0; f < FEATURES; f++)
      centers[c][f] = (float)test_rng_uniform(&rng, -2, 2);
  enum { BATCHES = 8 };
  float *h_x = calloc((size_t)LD * N * BATCHES, sizeof(float));
  int *h_labels = malloc(sizeof(int) * N * BATCHES);
  for (int j = 0; j < N * BATCHES; j++) {
    h_labels[j] = (int)(test_rng_next(&rng) % CLASSES);
    for (int f = 0; f < FEATURES; f++)
      h_x[j * LD + f] =
          centers[h_labels[j]][f] + (float)test_rng_uniform(&rng, -1, 1);
  }
  char *d_x = test_upload_as(type, h_x, (size_t)LD * N * BATCHES);
  int *d_labels = test_upload(h_labels, sizeof(int) * N * BATCHES);
  double *d_stats = test_upload(NULL, sizeof(double) * 2 * STEPS);
  test_fill_device(d_stats, 0, sizeof(double) * 2 * STEPS);
  const float lr = 0.05f;
  float *d_lr = test_upload(&lr, sizeof lr);
  for (int s = 0; s < STEPS; s++) {
    int k = s % BATCHES;
    ck_assert_int_eq(
        mlp_train_step(net, ctx, d_x + (size_t)k * LD * N * lt_dtype_size(type),
                       d_labels + k * N, N, mode, d_lr, 0.9f, d_stats + 2 * s),
        0);
  }
  double stats[2 * STEPS];
  test_download(stats, d_stats, sizeof stats);
  double first = stats[0] / N, last = stats[2 * (STEPS - 1)] / N;
  ck_assert_msg(fabs(first - log(10.0)) < 1.0,
                "initial loss %.3f, expected ~2.3", first);
  ck_assert_msg(last < first / 3, "loss went from %.3f to only %.3f", first,
                last);
  ck_assert_msg(stats[2 * (STEPS - 1) + 1] >= 0.9 * N,
                "final batch accuracy %.0f/%d", stats[2 * (STEPS - 1) + 1], N);
  free(h_x);
  free(h_labels);
  test_free(d_x);
  test_free(d_labels);
  test_free(d_stats);
  test_free(d_lr);
  mlp_destroy(net);
  gpu_context_destroy(ctx);
}
END_TEST

/* The SGD kernel: v = mu v + g; p -= lr v in FP32 (within 1e-6: the GPU
 * may fuse the multiply-adds, the host does not). */
START_TEST(sgd_update_matches_formula) {
  enum { COUNT = 1005 };
  test_rng rng;
  test_rng_init(&rng, seed);
  float p[COUNT], v[COUNT], g[COUNT];
  for (int i = 0; i < COUNT; i++) {
    p[i] = (float)test_rng_uniform(&rng, -1, 1);
    v[i] = (float)test_rng_uniform(&rng, -1, 1);
    g[i] = (float)test_rng_uniform(&rng, -1, 1);
  }
  /* The scalar path, and the 4-wide one at a multiple of 8 and at one of
   * 4 only. */
  size_t counts[3] = {COUNT, 1000, 1004};
  for (int t = 0; t < 3; t++) {
    float *d_p = test_upload(p, sizeof p), *d_v = test_upload(v, sizeof v);
    float *d_g = test_upload(g, sizeof g);
    const float lr = 0.1f;
    float *d_lr = test_upload(&lr, sizeof lr);
    sgd_slabs slabs = {.d_params = d_p,
                       .d_velocity = d_v,
                       .d_grads = d_g,
                       .type = LT_DTYPE_F32,
                       .count = counts[t]};
    ck_assert_int_eq(sgd_update(&slabs, d_lr, 0.9f, 1.0f, NULL, 0), 0);
    float got_p[COUNT], got_v[COUNT];
    test_download(got_p, d_p, sizeof got_p);
    test_download(got_v, d_v, sizeof got_v);
    for (size_t i = 0; i < counts[t]; i++) {
      volatile float vv = 0.9f * v[i] + g[i];
      volatile float pp = p[i] - 0.1f * vv;
      ck_assert_float_eq_tol(got_v[i], vv, 1e-6f);
      ck_assert_float_eq_tol(got_p[i], pp, 1e-6f);
    }
    if (counts[t] < COUNT) ck_assert(got_p[COUNT - 1] == p[COUNT - 1]);
    test_free(d_p);
    test_free(d_v);
    test_free(d_g);
    test_free(d_lr);
  }
}
END_TEST

/* NaN: cuBLASLt's fused ReLU lets a NaN pre-activation through (measured
 * on the H200), and the unfused kernel does the same, so a NaN anywhere in
 * the weights reaches the loss, where the trainer's guard stops training.
 * Both modes agree on the output and on the mask bit. */
START_TEST(nan_weights_reach_the_loss_in_both_modes) {
  int widths[3] = {784, 100, 10};
  enum { N = 64 };
  uint8_t bits[2][N];
  for (int mode = 0; mode < 2; mode++) {
    gpu_context *ctx = test_context(GPU_AUTOTUNE_OFF, GPU_PRECISION_FP32);
    ck_assert_ptr_nonnull(ctx);
    mlp *net = NULL;
    ck_assert_int_eq(mlp_create(&net, widths, 2, N, NULL), 0);
    ck_assert_int_eq(mlp_init_params(net, ctx, seed), 0);
    test_rng rng;
    test_rng_init(&rng, seed);
    test_batch b = test_batch_make(&rng, 784, N, 10, LT_DTYPE_F32);
    const float not_a_number = NAN;
    double stats[2];
    double *d_stats = test_upload(NULL, sizeof stats);
    test_fill_device(d_stats, 0, sizeof stats);
    /* Hidden unit 0's first weight, W[0][0] of layer 0. */
    test_copy_to_device(net->layers[0].d_wt, &not_a_number,
                        sizeof not_a_number);
    ck_assert_int_eq(mlp_evaluate(net, ctx, b.d_x, b.d_labels, N,
                                  mode ? MLP_MODE_UNFUSED : MLP_MODE_FUSED,
                                  d_stats),
                     0);
    test_download(stats, d_stats, sizeof stats);
    ck_assert_msg(isnan(stats[0]), "mode %d: loss %g with a NaN hidden weight",
                  mode, stats[0]);
    uint8_t mask[16 * N];
    test_download(mask, net->layers[0].d_aux, sizeof mask);
    for (int j = 0; j < N; j++) {
      float y = 0;
      test_download(&y, (float *)net->layers[0].d_y + (size_t)j * lt_ld(100),
                    sizeof y);
      ck_assert_msg(isnan(y), "mode %d: ReLU(NaN) gave %g", mode, y);
      bits[mode][j] = (uint8_t)(mask[j * 16] & 1);
    }
    test_free(d_stats);
    test_batch_free(&b);
    mlp_destroy(net);
    gpu_context_destroy(ctx);
  }
  for (int j = 0; j < N; j++)
    ck_assert_msg(bits[0][j] == bits[1][j] && bits[0][j] == 1,
                  "NaN's mask bit: fused %d, unfused %d (sample %d)",
                  bits[0][j], bits[1][j], j);
}
END_TEST

int main(void) {
  test_require_gpu("mlp_train");
  seed = test_seed("mlp_train");
  Suite *suite = suite_create("mlp_train");
  TCase *tc = tcase_create("train");
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, identical_runs_are_bitwise_identical, 0, 6);
  /* fused, unfused, auto x fp32, tf32, bf16, fp16 */
  tcase_add_loop_test(tc, training_drives_the_loss_down, 0, 12);
  tcase_add_test(tc, sgd_update_matches_formula);
  tcase_add_test(tc, nan_weights_reach_the_loss_in_both_modes);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 1);
}
