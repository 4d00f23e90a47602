/* test_mlp_fp8_train.c: the FP8 step (layers/mlp_fp8.h) on the GPU,
 * beyond one pass's copies (test_mlp_fp8.c):
 *   1. Training: the loss falls, the counters count.
 *   2. The FP8 GEMMs of the step's shapes, BF16 and E4M3 D, exactly.
 *   3. The wrapper refuses malformed FP8 calls before cuBLASLt sees them,
 *      and every FP8 shape its rules admit runs; the network refuses
 *      unpadded widths.
 *   4. Evaluation keeps out of the training scaling state; setting the
 *      parameters starts it over.
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
#include "tests/test_fp8_util.h"
#include "tests/test_gpu.h"
#include "tests/test_types.h"
#include "tests/test_util.h"

static uint64_t seed;

/* hybrid, delayed, fast accumulation in the forward GEMMs (the defaults);
 * all E4M3, current, fast accumulation everywhere. */
enum { RECIPES = 2 };
static const fp8_recipe recipes[RECIPES] = {{0, 0, FP8_FAST_ACCUM_FORWARD},
                                            {1, 1, FP8_FAST_ACCUM_ALL}};

/* An FP8 network of `widths` (padded to 16), initialised from `init`. */
static mlp *fp8_network(gpu_context *ctx, const int *widths, int depth,
                        int max_batch, fp8_recipe recipe, uint64_t init) {
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

/* A tensor's counts across one step (`was` before, `now` after): an
 * overflow only as delayed scaling makes it, answered by the roll that
 * counts it. The scale a step's write uses comes from the amax of the
 * steps before (the roll, fp8_device.cuh's fp8_roll_one: `used`), and the
 * rule's power of two leaves a headroom between 1 and 2 over that history:
 * a tensor that grows past 448 / used in one step (the weights, SGD's
 * cast, under either recipe) overflows in that step, before any rule
 * could know, once per power of two it grows through (Transformer
 * Engine's delayed scaling, margin 0, the same). Zero overflows is a
 * property of the data, not of the code: the H200 counted one for W2
 * (scale 1024 -> 512: its largest |w| from about 0.33 at initialisation,
 * std 0.1 over 1000 weights, past 448 / 1024 = 0.4375). What the code
 * owes, and what is held here: at most one per roll (one roll a step for
 * the weights; the calibrating roll of the first step writes no overflow:
 * its casts took their own scale), only for an amax truly past the range
 * (the newest history entry times the scale used > 448: max of the
 * history, which holds it), and that same roll's scale at most half the
 * one used (the history's max >= amax > 448 / used, and the rule's 2^k
 * is the largest with max * 2^k <= 448, so 2^k < used, both powers of
 * two). */
static void check_overflow(const fp8_meta *was, const fp8_meta *now,
                           const char *name, int step, unsigned *overflows) {
  unsigned more = now->overflows - was->overflows;
  ck_assert_msg(more <= 1, "%s: %u overflows in step %d", name, more, step);
  if (!more) return;
  float amax = 0.0f;
  for (int h = 0; h < FP8_HISTORY; h++)
    amax = fmaxf(amax, now->history[h]);
  ck_assert_msg((double)amax * was->scale > 448.0 &&
                    now->scale <= 0.5f * was->scale,
                "%s: an overflow in step %d with history amax %g at scale %g, "
                "then scale %g",
                name, step, amax, was->scale, now->scale);
  *overflows += 1;
}

/* Training in FP8 learns, and counts: 40 steps on one batch halve the loss
 * in both recipes. Writes by a cast kernel, per tensor: the weights once
 * at creation and once per step (SGD); layer 2's input once per step
 * under current scaling, once under delayed (the first pass; then the
 * forward GEMM writes it); every gradient once per step (the output
 * layer's by the loss kernel once delayed). Nothing lost to NaN, no scale
 * kept for a bad amax, every overflow answered (check_overflow). */
START_TEST(fp8_training_learns) {
  int widths[3] = {784, 100, 10};
  enum { N = 256, STEPS = 40 };
  gpu_context *ctx = fp8_context();
  mlp *net = fp8_network(ctx, widths, 2, N, recipes[_i], seed);
  test_rng rng;
  test_rng_init(&rng, seed);
  test_batch b = test_batch_make(&rng, 784, N, 10, LT_DTYPE_BF16);
  test_fp8_batch x = test_fp8_batch_make(b.h_x, 784, N);
  double *d_stats = test_upload(NULL, 2 * STEPS * sizeof(double));
  test_fill_device(d_stats, 0, 2 * STEPS * sizeof(double));
  const float lr = 0.05f;
  float *d_lr = test_upload(&lr, sizeof lr);
  const char *names[6] = {"W1", "W2", "X1", "X2", "dZ1", "dZ2"};
  fp8_meta meta[6], before[6];
  ck_assert_int_eq(mlp_fp8_read_meta(net, ctx, before), 0);
  unsigned overflows = 0;
  for (int s = 0; s < STEPS; s++) {
    ck_assert_int_eq(mlp_train_step(net, ctx, x.d_block, b.d_labels, N,
                                    MLP_MODE_FUSED, d_lr, 0.9f,
                                    d_stats + 2 * s),
                     0);
    ck_assert_int_eq(mlp_fp8_read_meta(net, ctx, meta), 0);
    for (int t = 0; t < 6; t++)
      check_overflow(&before[t], &meta[t], names[t], s, &overflows);
    memcpy(before, meta, sizeof meta);
  }
  printf("fp8 recipe %d: %u overflows in %d steps, each answered by its "
         "roll\n",
         _i, overflows, STEPS);
  double stats[2 * STEPS];
  test_download(stats, d_stats, sizeof stats);
  ck_assert_msg(stats[2 * (STEPS - 1)] < 0.5 * stats[0],
                "loss %g -> %g: FP8 training does not learn", stats[0] / N,
                stats[2 * (STEPS - 1)] / N);
  /* W1, W2, X1 (the batch's own), X2, dZ1, dZ2 */
  unsigned want[6] = {STEPS + 1, STEPS + 1, 0, recipes[_i].current ? STEPS : 1,
                      STEPS,     STEPS};
  for (int t = 0; t < 6; t++) {
    const char *name = names[t];
    ck_assert_msg(meta[t].casts == want[t], "%s: %u casts, want %u", name,
                  meta[t].casts, want[t]);
    ck_assert_msg(meta[t].bad_amax == 0 && meta[t].nan == 0 &&
                      meta[t].scale > 0.0f,
                  "%s: bad %u, NaN %u, scale %g", name, meta[t].bad_amax,
                  meta[t].nan, meta[t].scale);
  }
  test_fp8_batch_free(&x);
  test_free(d_stats);
  test_free(d_lr);
  test_batch_free(&b);
  mlp_destroy(net);
  gpu_context_destroy(ctx);
}
END_TEST

/* FP8 GEMMs exactly (test_fp8_exact_call: integer codes, scales A 2^-1
 * and B 2^-2 whose product is not 1, issue 28's defect 4: {0.5, 2} let a
 * GEMM that ignores both pass; an E4M3 D at scale 2^-1), with fast
 * accumulation on and off, on buffers of their own: the step's shapes
 * (the forward of 784 -> 112 and 112 -> 16, a data gradient and a weight
 * gradient at batch 96), and the forwards writing E4M3 with RELU_AUX_BIAS,
 * BIAS, DEFAULT and GELU_AUX_BIAS (its BF16 input exact: the aux type set
 * to BF16, not D's). */
START_TEST(fp8_gemms_are_exact_on_small_integers) {
  enum { N = 96, SHAPES = 8 };
  lt_shape shapes[SHAPES] = {
      linear_shape_forward_fp8(784, 112, N, 1, LT_FP8_NONE),
      linear_shape_forward_fp8(112, 16, N, 0, LT_FP8_NONE),
      linear_shape_data_fp8(112, 16, N, LT_FP8_E5M2),
      linear_shape_weights_fp8(784, 112, N, LT_FP8_E5M2),
      linear_shape_forward_fp8(784, 112, N, 1, LT_FP8_E4M3),
      linear_shape_forward_fp8(112, 16, N, 0, LT_FP8_E4M3),
      linear_shape_forward_fp8(784, 144, N, 1, LT_FP8_E4M3),
      lt_shape_activation(linear_shape_forward_fp8(784, 112, N, 1, LT_FP8_E4M3),
                          LT_ACTIVATION_GELU)};
  shapes[6].epilogue = LT_EPILOGUE_DEFAULT;
  shapes[6].aux_ld = 0;
  gpu_context *ctx = fp8_context();
  test_rng rng;
  test_rng_init(&rng, seed + 11);
  float *d_scales = test_upload(NULL, 64); /* 16 bytes apart */
  for (int c = 0; c < 2 * SHAPES; c++) {
    lt_shape s = shapes[c % SHAPES];
    s.fast_accum = c / SHAPES;
    lt_matmul_call call = {.shape = s,
                           .d_a = test_upload(NULL, (size_t)s.lda * s.m),
                           .d_b = test_upload(NULL, (size_t)s.ldb * s.n),
                           .d_d = test_upload(NULL, (size_t)s.ldd * s.n * 2),
                           .d_a_scale = d_scales,
                           .d_b_scale = d_scales + 4};
    if (lt_epilogue_reads_bias(s.epilogue))
      call.d_bias = test_upload(NULL, (size_t)s.m * 2);
    if (lt_epilogue_uses_aux(s.epilogue))
      call.d_aux = test_upload(NULL, lt_call_aux_bytes(&s));
    if (s.d_fp8) {
      call.d_d_scale = d_scales + 8;
      call.d_amax_d = d_scales + 12;
      call.d_c = test_upload(NULL, (size_t)s.ldd * s.n * 2);
    }
    char label[160];
    lt_shape_describe(label, sizeof label, &s);
    test_fp8_exact_call(ctx, GPU_LANE_MAIN, &call, &rng, label);
    test_free((void *)call.d_a);
    test_free((void *)call.d_b);
    test_free(call.d_d);
    test_free(call.d_c);
    test_free((void *)call.d_bias);
    test_free(call.d_aux);
  }
  test_free(d_scales);
  gpu_context_destroy(ctx);
}
END_TEST

/* The wrapper refuses malformed FP8 calls itself, naming the rule: no
 * scale pointers, NN, a scale pointer 4 bytes off 16, a scale pointer on
 * a BF16 call; an FP8 D without its scale, amax or C pointer, or with a
 * misaligned one. */
START_TEST(malformed_fp8_calls_are_refused) {
  gpu_context *ctx = fp8_context();
  uint8_t *d = test_upload(NULL, 1 << 16);
  float *scale = test_upload(NULL, 64);
  lt_matmul_call ok = {.shape =
                           linear_shape_forward_fp8(64, 64, 64, 0, LT_FP8_NONE),
                       .d_a = d,
                       .d_b = d + 4096,
                       .d_d = d + 8192,
                       .d_bias = d + 16384,
                       .d_a_scale = scale,
                       .d_b_scale = scale + 4};
  ck_assert_int_eq(lt_matmul(ctx, &ok), 0);
  static const char *const words[] = {
      "both scale pointers",    "TN format",
      "16-byte aligned",        "no scale pointers",
      "scale, amax and BF16 C", "16-byte aligned"};
  for (int i = 0; i < 6; i++) {
    lt_matmul_call c = ok;
    if (i == 0) c.d_b_scale = NULL;
    if (i == 1) c.shape.transa = 0;
    if (i == 2) c.d_b_scale = scale + 1;
    if (i == 3) c.shape.a_fp8 = c.shape.b_fp8 = LT_FP8_NONE;
    if (i >= 4) {
      c.shape.d_fp8 = LT_FP8_E4M3;
      c.d_d_scale = scale + 8;
      c.d_amax_d = i == 4 ? NULL : scale + 13; /* 4 bytes off 16 */
      c.d_c = d + 24576;
    }
    ck_assert_int_eq(lt_matmul(ctx, &c), -1);
    ck_assert_msg(strstr(lt_last_error(ctx), words[i]), "case %d: %s", i,
                  lt_last_error(ctx));
  }
  test_sync(ctx);
  test_free(d);
  test_free(scale);
  gpu_context_destroy(ctx);
}
END_TEST

/* Every FP8 shape the rules admit (lt/lt_shape.h: m and k multiples of
 * 16, n free) is planned and runs, D in BF16 and in E4M3; the products
 * are checked exactly above. n = 37 and 8 included: the batch is n. */
START_TEST(fp8_shapes_the_rules_admit_run) {
  static const int shapes[][3] = {
      {64, 64, 64},   {64, 37, 64},   {64, 8, 64},     {16, 1, 16},
      {112, 96, 784}, {16, 256, 112}, {784, 112, 2656}};
  gpu_context *ctx = fp8_context();
  uint8_t *d = test_upload(NULL, 8 << 20);
  test_fill_device(d, 0, 8 << 20);
  const float ones[16] = {1, 0, 0, 0, 1, 0, 0, 0, 1};
  float *scale = test_upload(ones, sizeof ones);
  for (int i = 0; i < 2 * (int)(sizeof shapes / sizeof shapes[0]); i++) {
    int m = shapes[i / 2][0], n = shapes[i / 2][1], k = shapes[i / 2][2];
    lt_fp8 out = i % 2 ? LT_FP8_E4M3 : LT_FP8_NONE;
    lt_matmul_call c = {.shape = linear_shape_forward_fp8(k, m, n, 0, out),
                        .d_a = d,
                        .d_b = d + (2 << 20),
                        .d_d = d + (4 << 20),
                        .d_bias = d + (7 << 20),
                        .d_a_scale = scale,
                        .d_b_scale = scale};
    c.shape.b_fp8 = LT_FP8_E5M2;
    if (out) {
      c.d_d_scale = scale + 4;
      c.d_amax_d = scale + 12;
      c.d_c = d + (5 << 20);
    }
    char why[512];
    ck_assert_int_eq(lt_shape_check(&c.shape, why, sizeof why), 0);
    ck_assert_msg(lt_matmul(ctx, &c) == 0, "m=%d n=%d k=%d D %s: %s", m, n, k,
                  lt_fp8_name(out), lt_last_error(ctx));
    c.shape.epilogue = LT_EPILOGUE_DEFAULT;
    c.d_bias = NULL;
    c.shape.fast_accum = 1;
    ck_assert_msg(lt_matmul(ctx, &c) == 0, "m=%d n=%d k=%d D %s fast: %s", m, n,
                  k, lt_fp8_name(out), lt_last_error(ctx));
  }
  test_sync(ctx);
  test_free(d);
  test_free(scale);
  gpu_context_destroy(ctx);
}
END_TEST

/* A width that is not a multiple of 16 is refused by the network, naming
 * it (issue 28, defect 7: there is no BF16 stand-in to fall back on). */
START_TEST(unpadded_widths_are_refused) {
  int widths[3] = {784, 100, 10};
  mlp *net = NULL;
  mlp_options options = {.type = LT_DTYPE_BF16, .fp8 = 1};
  ck_assert_int_eq(mlp_create(&net, widths, 2, 64, &options), -1);
  ck_assert_ptr_null(net);
}
END_TEST

/* Issue 28, defect 3: an evaluation pass (another batch, 8 times the
 * amax) leaves the training scaling state as it was (amax, history,
 * scales: it keeps its own) and writes no transposed copy; a training
 * pass after it runs as if it had not happened. */
START_TEST(evaluation_stays_out_of_the_training_state) {
  int widths[4] = {784, 144, 112, 16};
  enum { N = 96 };
  test_fp8_run r;
  test_fp8_run_open(&r, widths, 3, N, N, NULL, seed + 3);
  for (size_t i = 0; i < (size_t)784 * N; i++)
    r.batch.h_x[i] *= 8.0f;
  test_fp8_batch other = test_fp8_batch_make(r.batch.h_x, 784, N);
  test_fp8_run_passes(&r, 2, MLP_MODE_FUSED);
  fp8_meta before[9], after[9];
  ck_assert_int_eq(mlp_fp8_read_meta(r.net, r.ctx, before), 0);
  size_t x8t_bytes = (size_t)lt_ld_fp8(N) * 144;
  uint8_t *x8t = test_fp8_codes(r.net->fp8_tensors->x8t[1], x8t_bytes);
  for (int mode = 0; mode < 3; mode++)
    ck_assert_int_eq(mlp_evaluate(r.net, r.ctx, other.d_block, r.batch.d_labels,
                                  N, (mlp_mode)mode, r.d_stats),
                     0);
  ck_assert_int_eq(mlp_fp8_read_meta(r.net, r.ctx, after), 0);
  ck_assert_msg(memcmp(before, after, sizeof before) == 0,
                "evaluation changed the training scaling state");
  uint8_t *again = test_fp8_codes(r.net->fp8_tensors->x8t[1], x8t_bytes);
  ck_assert_msg(memcmp(x8t, again, x8t_bytes) == 0,
                "evaluation wrote X8T, which no evaluation reads");
  free(x8t);
  free(again);
  test_fp8_batch_free(&other);
  test_fp8_run_close(&r);
}
END_TEST

/* Setting the parameters starts the scaling state over (issue 28, defect
 * 1: the histories of the network before were kept): every amax,
 * history, count and the step zeroed, the weights cast anew with their
 * own amax, and the next training pass calibrates again. */
START_TEST(set_params_starts_the_scaling_over) {
  int widths[3] = {784, 112, 16};
  enum { N = 64 };
  test_fp8_run r;
  test_fp8_run_open(&r, widths, 2, N, N, NULL, seed + 4);
  mlp *net = r.net;
  const float lr = 0.05f;
  float *d_lr = test_upload(&lr, sizeof lr);
  for (int s = 0; s < 3; s++)
    ck_assert_int_eq(mlp_train_step(net, r.ctx, r.x.d_block, r.batch.d_labels,
                                    N, MLP_MODE_FUSED, d_lr, 0.9f, r.d_stats),
                     0);
  size_t slab = net->layout.slab_floats;
  float *params = malloc(slab * sizeof(float));
  ck_assert_int_eq(mlp_get_params(net, r.ctx, params), 0);
  for (size_t i = 0; i < slab; i++)
    params[i] *= 0.5f;
  ck_assert_int_eq(mlp_set_params(net, r.ctx, params), 0);
  fp8_meta meta[6];
  ck_assert_int_eq(mlp_fp8_read_meta(net, r.ctx, meta), 0);
  for (int t = 0; t < 6; t++) {
    float history = 0.0f;
    for (int h = 0; h < FP8_HISTORY; h++)
      history = fmaxf(history, meta[t].history[h]);
    ck_assert_msg(history == 0.0f && meta[t].casts == (t < 2 ? 1u : 0u),
                  "tensor %d: history %g, %u casts after set_params", t,
                  history, meta[t].casts);
  }
  ck_assert_int_eq(net->fp8_tensors->calibrated, 0);
  ck_assert_int_eq(mlp_forward(net, r.ctx, r.x.d_block, N, MLP_MODE_FUSED), 0);
  ck_assert_int_eq(mlp_fp8_writes_fp8(net, 0, MLP_MODE_FUSED), 0);
  ck_assert_int_eq(mlp_backward(net, r.ctx, r.x.d_block, r.batch.d_labels, N,
                                MLP_MODE_FUSED, r.d_stats),
                   0);
  ck_assert_int_eq(net->fp8_tensors->calibrated, 1);
  free(params);
  test_free(d_lr);
  test_fp8_run_close(&r);
}
END_TEST

int main(void) {
  test_require_fp8("mlp_fp8_train");
  seed = test_seed("mlp_fp8_train");
  Suite *suite = suite_create("mlp_fp8_train");
  TCase *tc = tcase_create("fp8");
  tcase_set_timeout(tc, 900);
  tcase_add_loop_test(tc, fp8_training_learns, 0, RECIPES);
  tcase_add_test(tc, fp8_gemms_are_exact_on_small_integers);
  tcase_add_test(tc, malformed_fp8_calls_are_refused);
  tcase_add_test(tc, fp8_shapes_the_rules_admit_run);
  tcase_add_test(tc, unpadded_widths_are_refused);
  tcase_add_test(tc, evaluation_stays_out_of_the_training_state);
  tcase_add_test(tc, set_params_starts_the_scaling_over);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 1);
}
