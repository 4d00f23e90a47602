/* test_inference.c: the inference-only network (layers/mlp.h) on the GPU:
 * it allocates no training buffer (its training pointers are NULL and it
 * takes less device memory than the training network by at least the
 * gradient and momentum slabs); its forward pass, predictions and loss are
 * the training network's bit for bit (same calls, same epilogue, the aux
 * still written); mlp_set_params / mlp_get_params round-trip and refresh
 * the 16-bit copy; the training calls are refused, a training step before
 * any work (the activations stay as they were). Skips (77) without a
 * GPU. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu_check.h"
#include "layers/mlp.h"
#include "tests/test_gpu.h"
#include "tests/test_types.h"
#include "tests/test_util.h"

static uint64_t seed;

static const struct {
  gpu_precision precision;
  lt_activation activation;
  int pad_units;
} cases[] = {
    {GPU_PRECISION_FP32, LT_ACTIVATION_RELU, 0},
    {GPU_PRECISION_FP32, LT_ACTIVATION_GELU, 0},
    {GPU_PRECISION_BF16, LT_ACTIVATION_RELU, 1},
    {GPU_PRECISION_FP16, LT_ACTIVATION_RELU, 0},
};

/* Device bytes in use now (after a sync). */
static size_t used_bytes(void) {
  size_t free_bytes = 0, total = 0;
  ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
  ck_assert_int_eq(cudaMemGetInfo(&free_bytes, &total), cudaSuccess);
  return total - free_bytes;
}

START_TEST(no_training_buffers) {
  int widths[] = {784, 1024, 1024, 10};
  enum { N = 256 };
  size_t before = used_bytes();
  mlp *train = NULL, *infer = NULL;
  ck_assert_int_eq(mlp_create(&train, widths, 3, N, NULL), 0);
  size_t with_train = used_bytes();
  mlp_destroy(train);
  size_t after_train = used_bytes();
  mlp_options options = {.inference_only = 1};
  ck_assert_int_eq(mlp_create(&infer, widths, 3, N, &options), 0);
  size_t with_infer = used_bytes();
  ck_assert_ptr_null(infer->d_grads);
  ck_assert_ptr_null(infer->d_velocity);
  for (int l = 0; l < 3; l++) {
    ck_assert_ptr_null(infer->layers[l].d_dz);
    ck_assert_ptr_null(infer->layers[l].d_dwt);
    ck_assert_ptr_null(infer->layers[l].d_db);
    ck_assert_ptr_nonnull(infer->layers[l].d_y);
  }
  ck_assert_ptr_nonnull(infer->d_params);
  /* Gradient and momentum slabs, FP32 here: 2 x slab bytes at least. */
  size_t slabs = 2 * infer->layout.slab_floats * sizeof(float);
  size_t train_bytes = with_train - before,
         infer_bytes = with_infer - after_train;
  ck_assert_msg(train_bytes >= infer_bytes + slabs,
                "training network %zu bytes, inference-only %zu: expected "
                "%zu fewer at least",
                train_bytes, infer_bytes, slabs);
  mlp_destroy(infer);
}
END_TEST

START_TEST(training_calls_refused) {
  int widths[] = {784, 32, 10};
  gpu_context *ctx = test_context(GPU_AUTOTUNE_OFF, GPU_PRECISION_FP32);
  ck_assert_ptr_nonnull(ctx);
  mlp *net = NULL;
  mlp_options options = {.inference_only = 1};
  ck_assert_int_eq(mlp_create(&net, widths, 2, 8, &options), 0);
  float lr = 0.1f;
  float *d_lr = test_upload(&lr, sizeof lr);
  double *d_stats = test_upload(NULL, 2 * sizeof(double));
  int *d_labels = test_upload(NULL, 8 * sizeof(int));
  void *d_x = test_upload(NULL, (size_t)lt_ld(784) * 8 * sizeof(float));
  ck_assert_int_eq(mlp_forward(net, ctx, d_x, 8, MLP_MODE_FUSED), 0);
  ck_assert_int_eq(
      mlp_backward(net, ctx, d_x, d_labels, 8, MLP_MODE_FUSED, d_stats), -1);
  ck_assert_int_eq(mlp_update(net, ctx, d_lr, 0.9f), -1);
  mlp_call calls[MLP_MAX_STEP_CALLS];
  ck_assert_int_eq(mlp_step_calls(net, d_x, 8, GPU_CHAIN_NONE, calls), 2);
  test_free(d_x);
  test_free(d_labels);
  test_free(d_stats);
  test_free(d_lr);
  mlp_destroy(net);
  gpu_context_destroy(ctx);
}
END_TEST

/* A refused training step does no work: the first layer's activations
 * from a forward pass on zeros stay as they were, though the refused step
 * was given another batch (before the fix it ran mlp_forward on it first,
 * and ReLU(W x) of x = 1 with random W is not all zero). */
START_TEST(refused_train_step_leaves_activations) {
  int widths[] = {784, 32, 10};
  enum { N = 8, LD = 784 };
  gpu_context *ctx = test_context(GPU_AUTOTUNE_OFF, GPU_PRECISION_FP32);
  ck_assert_ptr_nonnull(ctx);
  mlp *net = NULL;
  mlp_options options = {.inference_only = 1};
  ck_assert_int_eq(mlp_create(&net, widths, 2, N, &options), 0);
  ck_assert_int_eq(mlp_init_params(net, ctx, seed), 0);
  float lr = 0.1f;
  float *h_ones = malloc((size_t)LD * N * sizeof(float)); /* (784, N) */
  float *h_zeros = calloc((size_t)LD * N, sizeof(float));
  for (int i = 0; i < LD * N; i++)
    h_ones[i] = 1.0f;
  float *d_lr = test_upload(&lr, sizeof lr);
  double *d_stats = test_upload(NULL, 2 * sizeof(double));
  int *d_labels = test_upload((int[N]){0}, N * sizeof(int));
  void *d_zeros = test_upload(h_zeros, (size_t)LD * N * sizeof(float));
  void *d_ones = test_upload(h_ones, (size_t)LD * N * sizeof(float));
  ck_assert_int_eq(mlp_forward(net, ctx, d_zeros, N, MLP_MODE_FUSED), 0);
  size_t y_bytes = (size_t)lt_ld(32) * N * sizeof(float); /* (32, N) */
  float before[32 * N], after[32 * N], ones_y[32 * N];
  test_download(before, net->layers[0].d_y, y_bytes);
  ck_assert_int_eq(mlp_train_step(net, ctx, d_ones, d_labels, N, MLP_MODE_FUSED,
                                  d_lr, 0.9f, d_stats),
                   -1);
  ck_assert_int_eq(cudaStreamSynchronize(ctx->stream), cudaSuccess);
  test_download(after, net->layers[0].d_y, y_bytes);
  ck_assert_int_eq(memcmp(before, after, y_bytes), 0);
  /* The step had something to overwrite: the same forward on the ones
   * batch changes the activations. */
  ck_assert_int_eq(mlp_forward(net, ctx, d_ones, N, MLP_MODE_FUSED), 0);
  test_download(ones_y, net->layers[0].d_y, y_bytes);
  ck_assert_int_ne(memcmp(before, ones_y, y_bytes), 0);
  test_free(d_ones);
  test_free(d_zeros);
  test_free(d_labels);
  test_free(d_stats);
  test_free(d_lr);
  free(h_zeros);
  free(h_ones);
  mlp_destroy(net);
  gpu_context_destroy(ctx);
}
END_TEST

/* Both networks hold the same parameters (the training one's initial
 * ones, through the host); the same batch gives the same logits,
 * predictions, probabilities and loss bit for bit, fused and unfused. */
START_TEST(forward_matches_training_bit_for_bit) {
  int widths[] = {784, 100, 37, 10};
  enum { N = 96 };
  gpu_context *ctx = test_context(GPU_AUTOTUNE_EXACT, cases[_i].precision);
  ck_assert_ptr_nonnull(ctx);
  lt_dtype type = lt_precision_dtype(cases[_i].precision);
  mlp_options options = {.type = type,
                         .activation = cases[_i].activation,
                         .pad_units = cases[_i].pad_units};
  mlp *train = NULL, *infer = NULL;
  ck_assert_int_eq(mlp_create(&train, widths, 3, N, &options), 0);
  options.inference_only = 1;
  ck_assert_int_eq(mlp_create(&infer, widths, 3, N, &options), 0);
  ck_assert_int_eq(mlp_init_params(train, ctx, seed + (uint64_t)_i), 0);
  size_t slab = train->layout.slab_floats;
  float *params = malloc(slab * sizeof(float));
  float *back = malloc(slab * sizeof(float));
  ck_assert_int_eq(mlp_get_params(train, ctx, params), 0);
  ck_assert_int_eq(mlp_set_params(infer, ctx, params), 0);
  ck_assert_int_eq(mlp_get_params(infer, ctx, back), 0);
  ck_assert_int_eq(memcmp(params, back, slab * sizeof(float)), 0);
  if (type != LT_DTYPE_F32) {
    /* The 16-bit copy the matmuls read was refreshed from the slab. */
    size_t bytes = slab * lt_dtype_size(type);
    char *a = malloc(bytes), *b = malloc(bytes);
    test_download(a, train->d_params_copy, bytes);
    test_download(b, infer->d_params_copy, bytes);
    ck_assert_int_eq(memcmp(a, b, bytes), 0);
    free(a);
    free(b);
  }
  test_rng rng;
  test_rng_init(&rng, seed ^ 0x1234u);
  size_t ld = (size_t)lt_ld(784);
  float *h_x = malloc(ld * N * sizeof(float));
  int h_labels[N];
  for (size_t i = 0; i < ld * N; i++)
    h_x[i] = (float)test_rng_uniform(&rng, -1.0, 2.0);
  for (int j = 0; j < N; j++)
    h_labels[j] = (int)(test_rng_next(&rng) % 10);
  void *d_x = test_upload_as(type, h_x, ld * N);
  int *d_labels = test_upload(h_labels, sizeof h_labels);
  /* Added to (+=), so zeroed: cudaMalloc's memory may hold an earlier
   * case's (seen on the H200: a hit count of 12.9983). */
  double *d_stats = test_upload(NULL, 4 * sizeof(double));
  test_fill_device(d_stats, 0, 4 * sizeof(double));
  int *d_pred = test_upload(NULL, 2 * N * sizeof(int));
  float *d_prob = test_upload(NULL, 2 * 10 * N * sizeof(float));
  mlp_mode modes[2] = {MLP_MODE_FUSED, MLP_MODE_UNFUSED};
  size_t logits_bytes =
      (size_t)lt_ld(infer->layout.widths[3]) * N * lt_dtype_size(type);
  char *la = malloc(logits_bytes), *lb = malloc(logits_bytes);
  for (int m = 0; m < 2; m++) {
    mlp *nets[2] = {train, infer};
    for (int k = 0; k < 2; k++) {
      ck_assert_int_eq(mlp_evaluate(nets[k], ctx, d_x, d_labels, N, modes[m],
                                    d_stats + 2 * k),
                       0);
      ck_assert_int_eq(mlp_predict(nets[k], ctx, d_x, N, modes[m],
                                   d_pred + k * N, d_prob + k * 10 * N),
                       0);
    }
    test_sync(ctx);
    test_download(la, mlp_logits(train), logits_bytes);
    test_download(lb, mlp_logits(infer), logits_bytes);
    ck_assert_msg(memcmp(la, lb, logits_bytes) == 0, "%s: logits differ",
                  mlp_mode_name(modes[m]));
    int pred[2 * N];
    float prob[2 * 10 * N];
    double stats[4];
    test_download(pred, d_pred, sizeof pred);
    test_download(prob, d_prob, sizeof prob);
    test_download(stats, d_stats, sizeof stats);
    ck_assert_int_eq(memcmp(pred, pred + N, N * sizeof(int)), 0);
    ck_assert_int_eq(memcmp(prob, prob + 10 * N, 10 * N * sizeof(float)), 0);
    ck_assert_msg(stats[0] == stats[2] && stats[1] == stats[3],
                  "loss %.17g / %.17g, hits %g / %g", stats[0], stats[2],
                  stats[1], stats[3]);
    test_fill_device(d_stats, 0, 4 * sizeof(double));
  }
  free(la);
  free(lb);
  test_free(d_prob);
  test_free(d_pred);
  test_free(d_stats);
  test_free(d_labels);
  test_free(d_x);
  free(h_x);
  free(back);
  free(params);
  mlp_destroy(infer);
  mlp_destroy(train);
  gpu_context_destroy(ctx);
}
END_TEST

int main(void) {
  test_require_gpu("inference");
  seed = test_seed("inference");
  Suite *suite = suite_create("inference");
  TCase *tc = tcase_create("inference");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, no_training_buffers);
  tcase_add_test(tc, training_calls_refused);
  tcase_add_test(tc, refused_train_step_leaves_activations);
  tcase_add_loop_test(tc, forward_matches_training_bit_for_bit, 0,
                      (int)(sizeof cases / sizeof cases[0]));
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 1);
}
