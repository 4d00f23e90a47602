/* test_mlp_precision.c: a whole training step of the MLP in FP32, BF16
 * and FP16, fused, unfused and auto, checked call by call: after forward
 * and backward, every buffer is downloaded and each call of the step (the
 * recipe of layers/mlp.c) is held to the oracle computed from that call's
 * own inputs as the GPU stored them (test_call_check.c derives the bound
 * from the storage type's unit roundoff). So a wrong layer wiring (a mask
 * of the wrong layer, a stale buffer, a wrong leading dimension) fails,
 * while the roundings of earlier calls, which a whole-step comparison
 * would have to bound through the network, do not blur the check. Also:
 * the loss gradient (with FP16's loss scale), bitwise determinism of a
 * repeated step, and the SGD kernel's FP32 master update and 16-bit copy.
 * GPU only: skips (77) without one. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layers/mlp.h"
#include "layers/oracle.h"
#include "layers/sgd.h"
#include "tests/test_batch.h"
#include "tests/test_call_check.h"
#include "tests/test_gpu.h"
#include "tests/test_types.h"
#include "tests/test_util.h"

static uint64_t seed;

typedef struct net_case {
  int widths[5];
  int depth;
  int max_batch, n;
  int pad; /* mlp_options.pad_units */
  lt_activation activation;
} net_case;

static const net_case cases[] = {
    {{784, 129, 100, 10}, 3, 96, 96, 0, LT_ACTIVATION_RELU},
    {{784, 129, 100, 10}, 3, 96, 37, 0, LT_ACTIVATION_RELU}, /* partial */
    {{37, 7, 10}, 2, 256, 256, 0, LT_ACTIVATION_RELU},
    {{784, 1, 10}, 2, 1, 1, 0, LT_ACTIVATION_RELU},
    {{784, 100, 10}, 2, 256, 256, 1, LT_ACTIVATION_RELU}, /* 784-104-16 */
    {{784, 129, 100, 10}, 3, 96, 96, 0, LT_ACTIVATION_GELU},
    {{37, 7, 10}, 2, 256, 37, 0, LT_ACTIVATION_GELU},
};
enum { CASES = sizeof cases / sizeof cases[0], TYPES = 3, MODES = 3 };
static const gpu_precision precisions[TYPES] = {
    GPU_PRECISION_FP32, GPU_PRECISION_BF16, GPU_PRECISION_FP16};
static const mlp_mode modes[MODES] = {MLP_MODE_FUSED, MLP_MODE_UNFUSED,
                                      MLP_MODE_AUTO};

/* Everything a step left on the GPU, as doubles. */
typedef struct step_buffers {
  double *weights; /* the slab the matmuls read */
  double *grads;
  double *y[MLP_MAX_LAYERS], *dz[MLP_MAX_LAYERS]; /* (lt_ld(out), n) */
  uint8_t *mask[MLP_MAX_LAYERS];                  /* ReLU */
  double *gelu_in[MLP_MAX_LAYERS];                /* GELU: (lt_ld(out), n) */
} step_buffers;

static void download_step(step_buffers *s, const mlp *net, int n) {
  const void *weights = net->d_params_copy ? net->d_params_copy : net->d_params;
  size_t slab = net->layout.slab_floats;
  s->weights = test_download_as(net->type, weights, slab);
  s->grads = test_download_as(net->type, net->d_grads, slab);
  for (int l = 0; l < net->layout.depth; l++) {
    const linear_layer *layer = &net->layers[l];
    size_t count = (size_t)lt_ld(layer->out) * n;
    s->y[l] = test_download_as(net->type, layer->d_y, count);
    s->dz[l] = test_download_as(net->type, layer->d_dz, count);
    s->mask[l] = NULL;
    s->gelu_in[l] = NULL;
    if (layer->hidden && net->activation == LT_ACTIVATION_GELU) {
      s->gelu_in[l] = test_download_as(net->type, layer->d_aux, count);
    } else if (layer->hidden) {
      s->mask[l] = malloc(lt_aux_bytes(layer->out, n));
      test_download(s->mask[l], layer->d_aux, lt_aux_bytes(layer->out, n));
    }
  }
}

static void free_step(step_buffers *s, int depth) {
  free(s->weights);
  free(s->grads);
  for (int l = 0; l < depth; l++) {
    free(s->y[l]);
    free(s->dz[l]);
    free(s->mask[l]);
    free(s->gelu_in[l]);
  }
}

/* The loss gradient: (softmax - onehot) * scale / n from the GPU's own
 * logits, stored in the type (u_s relative) after FP32 exp/log (1e-6 of
 * the largest term, scale / n). */
static void check_xent(const step_buffers *s, const mlp *net, const int *labels,
                       int n, const char *label) {
  int top = net->layout.depth - 1, classes = net->units[top + 1];
  int ld = lt_ld(classes);
  double *want = calloc((size_t)ld * n, sizeof(double));
  int correct = 0;
  oracle_xent(want, &correct, s->y[top], ld, labels, classes, n);
  double us = lt_dtype_unit_roundoff(net->type);
  for (int j = 0; j < n; j++)
    for (int c = 0; c < classes; c++) {
      size_t at = (size_t)j * ld + c;
      double ref = want[at] * net->loss_scale;
      double bound = us * fabs(ref) + 1e-6 * net->loss_scale / n +
                     (net->type == LT_DTYPE_F16 ? ldexp(1.0, -25) : 0.0);
      ck_assert_msg(fabs(s->dz[top][at] - ref) <= bound,
                    "%s: dlogits(%d,%d) = %.9g, oracle %.9g", label, c, j,
                    s->dz[top][at], ref);
    }
  free(want);
}

/* Every matmul of the step, as layers/mlp.c makes them. */
static void check_calls(const step_buffers *s, const mlp *net, const double *x,
                        int n, const char *label) {
  const mlp_layout *lay = &net->layout;
  int depth = lay->depth;
  for (int l = 0; l < depth; l++) {
    const linear_layer *layer = &net->layers[l];
    const double *input = l == 0 ? x : s->y[l - 1];
    lt_shape f = lt_shape_activation(
        lt_shape_forward(layer->in, layer->out, n, layer->hidden),
        net->activation);
    f.type = net->type;
    test_call_result fwd = {.shape = f,
                            .a = s->weights + lay->w_offset[l],
                            .b = input,
                            .bias = s->weights + lay->b_offset[l],
                            .d = s->y[l],
                            .aux_out = s->mask[l],
                            .gelu_out = s->gelu_in[l]};
    char what[128];
    snprintf(what, sizeof what, "%s layer %d forward", label, l);
    test_check_call(&fwd, what);
    int top = l == depth - 1;
    lt_shape w = lt_shape_backward_weights(layer->in, layer->out, n, top);
    w.type = net->type;
    test_call_result dw = {.shape = w,
                           .a = input,
                           .b = s->dz[l],
                           .d = s->grads + lay->w_offset[l],
                           .bias_grad =
                               top ? s->grads + lay->b_offset[l] : NULL};
    snprintf(what, sizeof what, "%s layer %d weights", label, l);
    test_check_call(&dw, what);
    if (l == 0) continue;
    lt_shape d = lt_shape_activation(
        lt_shape_backward_data(layer->in, layer->out, n), net->activation);
    d.type = net->type;
    test_call_result dx = {.shape = d,
                           .a = s->weights + lay->w_offset[l],
                           .b = s->dz[l],
                           .aux_in = s->mask[l - 1],
                           .gelu_in = s->gelu_in[l - 1],
                           .d = s->dz[l - 1],
                           .bias_grad = s->grads + lay->b_offset[l - 1]};
    snprintf(what, sizeof what, "%s layer %d data", label, l);
    test_check_call(&dx, what);
  }
}

START_TEST(every_call_of_a_step_matches_the_oracle) {
  const net_case *c = &cases[_i / (TYPES * MODES)];
  gpu_precision precision = precisions[_i / MODES % TYPES];
  mlp_mode mode = modes[_i % MODES];
  lt_dtype type = lt_precision_dtype(precision);
  gpu_context *ctx = test_context(GPU_AUTOTUNE_EXACT, precision);
  ck_assert_ptr_nonnull(ctx);
  mlp *net = NULL;
  mlp_options options = {
      .type = type, .activation = c->activation, .pad_units = c->pad};
  ck_assert_int_eq(
      mlp_create(&net, c->widths, c->depth, c->max_batch, &options), 0);
  ck_assert_int_eq(mlp_init_params(net, ctx, seed + (uint64_t)_i), 0);
  test_rng rng;
  test_rng_init(&rng, seed + (uint64_t)_i);
  int classes = c->widths[c->depth];
  test_batch b = test_batch_make(&rng, c->widths[0], c->n, classes, type);
  double *d_stats = test_upload(NULL, 2 * sizeof(double));
  step_buffers first, again;
  for (int r = 0; r < 2; r++) {
    test_fill_device(d_stats, 0, 2 * sizeof(double));
    ck_assert_int_eq(mlp_forward(net, ctx, b.d_x, c->n, mode), 0);
    ck_assert_int_eq(
        mlp_backward(net, ctx, b.d_x, b.d_labels, c->n, mode, d_stats), 0);
    download_step(r ? &again : &first, net, c->n);
  }
  char label[96];
  snprintf(label, sizeof label, "case %d %s %s %s", _i, mlp_mode_name(mode),
           gpu_precision_name(precision), lt_activation_name(c->activation));
  size_t x_count = (size_t)lt_ld(c->widths[0]) * c->n;
  double *x = malloc(x_count * sizeof(double));
  for (size_t i = 0; i < x_count; i++)
    x[i] = b.h_x[i];
  check_xent(&first, net, b.h_labels, c->n, label);
  check_calls(&first, net, x, c->n, label);
  /* The same step again: bit for bit the same gradients. */
  size_t slab = net->layout.slab_floats;
  ck_assert_msg(memcmp(first.grads, again.grads, slab * sizeof(double)) == 0,
                "%s: a repeated step changed the gradients", label);
  free(x);
  free_step(&first, c->depth);
  free_step(&again, c->depth);
  test_free(d_stats);
  test_batch_free(&b);
  mlp_destroy(net);
  gpu_context_destroy(ctx);
}
END_TEST

/* SGD in mixed precision: the FP32 master p -= lr (mu v + g / scale) from
 * 16-bit gradients, and the copy is the new master rounded to the type
 * (exactly: the same rounding on both sides), on the 8-wide and the scalar
 * paths. */
/* Padded units (784-100-10 run as 784-104-16) start at zero and stay
 * exactly zero through training: the weights into and out of them, their
 * biases; the loss falls as it does without them. */
START_TEST(padded_units_stay_zero) {
  int widths[3] = {784, 100, 10};
  enum { N = 256, STEPS = 30 };
  gpu_context *ctx = test_context(GPU_AUTOTUNE_EXACT, GPU_PRECISION_BF16);
  ck_assert_ptr_nonnull(ctx);
  mlp *net = NULL;
  mlp_options padded = {.type = LT_DTYPE_BF16, .pad_units = 1};
  ck_assert_int_eq(mlp_create(&net, widths, 2, N, &padded), 0);
  ck_assert_int_eq(net->layout.widths[1], 104);
  ck_assert_int_eq(net->layout.widths[2], 16);
  ck_assert_int_eq(net->unit_params, 784 * 100 + 100 + 100 * 10 + 10);
  ck_assert_int_eq(mlp_init_params(net, ctx, seed), 0);
  test_rng rng;
  test_rng_init(&rng, seed);
  test_batch b = test_batch_make(&rng, 784, N, 10, LT_DTYPE_BF16);
  double *d_stats = test_upload(NULL, 2 * STEPS * sizeof(double));
  test_fill_device(d_stats, 0, 2 * STEPS * sizeof(double));
  const float lr = 0.05f;
  float *d_lr = test_upload(&lr, sizeof lr);
  for (int s = 0; s < STEPS; s++)
    ck_assert_int_eq(mlp_train_step(net, ctx, b.d_x, b.d_labels, N,
                                    MLP_MODE_AUTO, d_lr, 0.9f, d_stats + 2 * s),
                     0);
  const mlp_layout *lay = &net->layout;
  float *p = malloc(lay->slab_floats * sizeof(float));
  test_download(p, net->d_params, lay->slab_floats * sizeof(float));
  int nonzero = 0;
  for (int l = 0; l < 2; l++) {
    int ld = lt_ld(lay->widths[l]);
    for (int o = 0; o < lay->widths[l + 1]; o++) {
      int padded_out = o >= net->units[l + 1];
      for (int i = 0; i < ld; i++)
        if ((padded_out || i >= net->units[l]) &&
            p[lay->w_offset[l] + (size_t)o * ld + i] != 0.0f)
          nonzero++;
      if (padded_out && p[lay->b_offset[l] + o] != 0.0f) nonzero++;
    }
  }
  ck_assert_int_eq(nonzero, 0);
  double stats[2 * STEPS];
  test_download(stats, d_stats, sizeof stats);
  ck_assert_msg(stats[2 * (STEPS - 1)] < 0.5 * stats[0],
                "loss %g -> %g: the padded network does not learn",
                stats[0] / N, stats[2 * (STEPS - 1)] / N);
  free(p);
  test_free(d_stats);
  test_free(d_lr);
  test_batch_free(&b);
  mlp_destroy(net);
  gpu_context_destroy(ctx);
}
END_TEST

START_TEST(sgd_writes_master_and_copy) {
  enum { COUNT = 1003 };
  lt_dtype type = _i ? LT_DTYPE_F16 : LT_DTYPE_BF16;
  test_rng rng;
  test_rng_init(&rng, seed);
  float p[COUNT], v[COUNT], g[COUNT];
  for (int i = 0; i < COUNT; i++) {
    p[i] = (float)test_rng_uniform(&rng, -1, 1);
    v[i] = (float)test_rng_uniform(&rng, -1, 1);
    g[i] = test_round(type, (float)test_rng_uniform(&rng, -64, 64));
  }
  const float lr = 0.1f, unscale = 1.0f / 64.0f;
  size_t counts[2] = {COUNT, 1000};
  for (int t = 0; t < 2; t++) {
    float *d_p = test_upload(p, sizeof p), *d_v = test_upload(v, sizeof v);
    void *d_g = test_upload_as(type, g, COUNT);
    void *d_copy = test_upload(NULL, COUNT * 2);
    test_fill_device(d_copy, 0, COUNT * 2);
    float *d_lr = test_upload(&lr, sizeof lr);
    sgd_slabs slabs = {.d_params = d_p,
                       .d_velocity = d_v,
                       .d_grads = d_g,
                       .d_copy = d_copy,
                       .type = type,
                       .count = counts[t]};
    ck_assert_int_eq(sgd_update(&slabs, d_lr, 0.9f, unscale, NULL, 0), 0);
    float got_p[COUNT];
    test_download(got_p, d_p, sizeof got_p);
    double *copy = test_download_as(type, d_copy, COUNT);
    for (size_t i = 0; i < counts[t]; i++) {
      volatile float vv = 0.9f * v[i] + g[i] * unscale;
      volatile float pp = p[i] - lr * vv;
      ck_assert_float_eq_tol(got_p[i], pp, 1e-6f);
      ck_assert_msg(copy[i] == test_round(type, got_p[i]),
                    "copy[%zu] = %.9g, master %.9g", i, copy[i], got_p[i]);
    }
    if (counts[t] < COUNT) ck_assert(copy[COUNT - 1] == 0.0);
    free(copy);
    test_free(d_p);
    test_free(d_v);
    test_free(d_g);
    test_free(d_copy);
    test_free(d_lr);
  }
}
END_TEST

int main(void) {
  test_require_gpu("mlp_precision");
  seed = test_seed("mlp_precision");
  Suite *suite = suite_create("mlp_precision");
  TCase *tc = tcase_create("precision");
  tcase_set_timeout(tc, 900);
  tcase_add_loop_test(tc, every_call_of_a_step_matches_the_oracle, 0,
                      CASES * TYPES * MODES);
  tcase_add_loop_test(tc, sgd_writes_master_and_copy, 0, 2);
  tcase_add_test(tc, padded_units_stay_zero);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 1);
}
