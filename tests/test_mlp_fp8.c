/* test_mlp_fp8.c: every call of an FP8 step (layers/mlp_fp8.h) against the
 * oracle from its own inputs, on the GPU (test_mlp_fp8_train.c: the whole
 * step, training, refusals and shapes). After forward and backward, every
 * buffer is downloaded; each FP8 GEMM is held to the oracle computed from
 * the FP8 codes it read, decoded and times their scale_inv
 * (test_call_check.c: BF16 output, 2^-8, and FP8's narrower accumulation);
 * each cast (weights, inputs, masked gradients) bit for bit to fp8_encode
 * of its BF16 or FP32 source with the scale recorded, in both layouts;
 * bias gradients to the sum of the masked gradient; a repeated step bit
 * for bit the same.
 * GPU only: skips (77) without one, or on a GPU without FP8 (below 8.9). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layers/mlp_fp8.h"
#include "layers/oracle.h"
#include "lt/lt_gelu.h"
#include "lt/lt_matmul.h"
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
  lt_activation activation;
} net_case;

static const net_case cases[] = {
    {{784, 129, 100, 10}, 3, 96, 96, LT_ACTIVATION_RELU},
    {{784, 129, 100, 10}, 3, 96, 37, LT_ACTIVATION_RELU}, /* partial batch */
    {{784, 100, 10}, 2, 256, 256, LT_ACTIVATION_RELU},
    {{784, 129, 100, 10}, 3, 96, 96, LT_ACTIVATION_GELU},
};
enum { CASES = sizeof cases / sizeof cases[0], RECIPES = 3, MODES = 2 };
/* hybrid, delayed, fast accumulation in the forward GEMMs (the defaults);
 * all E4M3, current, fast accumulation everywhere; hybrid, current, none.
 * (The first pass of a network casts with current scaling whatever the
 * recipe: its history is empty; the repeated pass is delayed.) */
static const gpu_fp8_recipe recipes[RECIPES] = {
    {0, 0, 0}, {1, 1, 1}, {0, 1, 2}};
static const mlp_mode modes[MODES] = {MLP_MODE_FUSED, MLP_MODE_UNFUSED};

static gpu_context *fp8_context(void) {
  gpu_context *ctx = test_context(GPU_AUTOTUNE_EXACT, GPU_PRECISION_FP8);
  ck_assert_ptr_nonnull(ctx);
  return ctx;
}

/* decode(q) * scale_inv over count codes, as doubles. */
static double *decoded(const uint8_t *d_q, size_t count, fp8_format format,
                       float scale_inv) {
  uint8_t *q = malloc(count ? count : 1);
  double *out = malloc((count ? count : 1) * sizeof(double));
  test_download(q, d_q, count);
  for (size_t i = 0; i < count; i++)
    out[i] = fp8_decode_scaled(q[i], scale_inv, format);
  free(q);
  return out;
}

/* The cast of `src` (rows, cols) ld ld_src, times `scale`, against the
 * codes at d_q (ld ld_q) and, if d_qt, their transpose (ld ld_qt): bit for
 * bit, or (tolerant: a GELU source whose host value may differ from the
 * device's in its last BF16 bit) within that bit and one FP8 rounding. */
static void check_cast(const double *src, int ld_src, int rows, int cols,
                       const uint8_t *d_q, int ld_q, const uint8_t *d_qt,
                       int ld_qt, float scale, fp8_format format, int tolerant,
                       const char *what) {
  uint8_t *q = NULL, *qt = NULL;
  if (d_q) {
    q = malloc((size_t)ld_q * cols);
    test_download(q, d_q, (size_t)ld_q * cols);
  }
  if (d_qt) {
    qt = malloc((size_t)ld_qt * rows);
    test_download(qt, d_qt, (size_t)ld_qt * rows);
  }
  double u = format == FP8_FORMAT_E5M2 ? 0.125 : 0.0625;
  for (int j = 0; j < cols; j++)
    for (int i = 0; i < rows; i++) {
      float x = (float)src[(size_t)j * ld_src + i];
      uint8_t want = fp8_encode_scaled(x, scale, format);
      uint8_t got[2] = {q ? q[(size_t)j * ld_q + i] : want,
                        qt ? qt[(size_t)i * ld_qt + j] : want};
      for (int k = 0; k < 2; k++) {
        if (!tolerant) {
          ck_assert_msg(got[k] == want,
                        "%s%s (%d,%d): 0x%02x, want 0x%02x (x %g, scale %g)",
                        what, k ? " transposed" : "", i, j, got[k], want, x,
                        scale);
          continue;
        }
        double v = fp8_decode_scaled(got[k], 1.0f / scale, format);
        double tol = (u + 1.0 / 128) * fabs(x) + 1e-30 / scale +
                     ldexp(1.0, format == FP8_FORMAT_E5M2 ? -16 : -9) / scale;
        ck_assert_msg(fabs(v - x) <= tol, "%s (%d,%d): %g, want %g", what, i, j,
                      v, x);
      }
    }
  free(q);
  free(qt);
}

/* dz (out, n) ld lt_ld(out) with the layer's mask or GELU' applied, as
 * the cast forms it (the ReLU bits of the layer's forward; GELU' in float
 * of the stored input, rounded to BF16). */
static double *masked_gradient(const double *dz, const mlp *net, int l, int n,
                               int apply) {
  const linear_layer *layer = &net->layers[l];
  int ld = lt_ld(layer->out);
  size_t count = (size_t)ld * n;
  double *out = malloc(count * sizeof(double));
  memcpy(out, dz, count * sizeof(double));
  if (!apply) return out;
  if (layer->activation == LT_ACTIVATION_GELU) {
    double *z = test_download_as(LT_DTYPE_BF16, layer->d_aux, count);
    for (size_t i = 0; i < count; i++) {
      float g = (float)dz[i] * lt_gelu_grad((float)z[i]);
      out[i] = test_round(LT_DTYPE_BF16, g);
    }
    free(z);
    return out;
  }
  size_t bytes = lt_aux_bytes(layer->out, n);
  uint8_t *bits = malloc(bytes);
  test_download(bits, layer->d_aux, bytes);
  for (int j = 0; j < n; j++)
    for (int i = 0; i < layer->out; i++)
      if (!oracle_mask_bit(bits, lt_aux_ld(layer->out), i, j))
        out[(size_t)j * ld + i] = 0.0;
  free(bits);
  return out;
}

/* The bias gradient db[out] (BF16) against the row sums of the masked
 * gradient: FP32 partial sums, then FP32 across tiles, one BF16 rounding. */
static void check_bias_grad(const double *db, const double *g, int out, int ld,
                            int n, int tolerant, const char *what) {
  for (int i = 0; i < out; i++) {
    double ref = 0, mag = 0;
    for (int j = 0; j < n; j++) {
      ref += g[(size_t)j * ld + i];
      mag += fabs(g[(size_t)j * ld + i]);
    }
    double bound = 2.0 * (n + 2) * ldexp(1.0, -24) * mag +
                   ldexp(1.0, -8) * fabs(ref) + ldexp(1.0, -133) +
                   (tolerant ? ldexp(1.0, -7) * mag : 0.0);
    ck_assert_msg(fabs(db[i] - ref) <= bound, "%s: db[%d] = %.9g, want %.9g",
                  what, i, db[i], ref);
  }
}

/* Everything one layer's calls and casts read and wrote. A call that ran
 * in BF16 (mlp_fp8_runs_fp8: a shape FP8 cannot take) is held to the
 * oracle from its BF16 inputs instead: the weight copy, the BF16 input,
 * the gradient as masked in place. */
static void check_layer(const mlp *net, const fp8_meta *meta, const double *x,
                        int l, int n, int fast_accum, const char *label) {
  const linear_layer *layer = &net->layers[l];
  const mlp_layout *lay = &net->layout;
  mlp_fp8_layer v = mlp_fp8_layer_view(net, l);
  fp8_format gf = mlp_fp8_gradient_format(net);
  lt_fp8 glt = gf == FP8_FORMAT_E5M2 ? LT_FP8_E5M2 : LT_FP8_E4M3;
  const fp8_meta *mw = &meta[3 * l + MLP_FP8_WEIGHTS],
                 *mx = &meta[3 * l + MLP_FP8_INPUT],
                 *mg = &meta[3 * l + MLP_FP8_GRADIENT];
  int in = layer->in, out = layer->out, depth = lay->depth;
  int ldi = lt_ld_fp8(in), ldo = lt_ld_fp8(out), ldn = lt_ld_fp8(n);
  int gelu = net->activation == LT_ACTIVATION_GELU;
  int fwd8 = mlp_fp8_runs_fp8(net, l, MLP_CALL_FORWARD);
  int w8 = mlp_fp8_runs_fp8(net, l, MLP_CALL_WEIGHTS);
  int d8 = l > 0 && mlp_fp8_runs_fp8(net, l, MLP_CALL_DATA_GRADIENT);
  char what[160];
  /* The weights' cast: from the FP32 master, both layouts. */
  size_t slab = lay->slab_floats;
  float *master = malloc(slab * sizeof(float));
  test_download(master, net->d_params, slab * sizeof(float));
  double *w = malloc((size_t)lt_ld(in) * out * sizeof(double));
  for (size_t i = 0; i < (size_t)lt_ld(in) * out; i++)
    w[i] = master[lay->w_offset[l] + i];
  snprintf(what, sizeof what, "%s layer %d W8", label, l);
  check_cast(w, lt_ld(in), in, out, v.w8, ldi, l > 0 ? v.w8t : NULL, ldo,
             mw->scale, FP8_FORMAT_E4M3, 0, what);
  /* The input's cast, where an FP8 call reads it. */
  const double *input = x;
  double *below_y = NULL;
  if (l > 0)
    input = below_y = test_download_as(LT_DTYPE_BF16, net->layers[l - 1].d_y,
                                       (size_t)lt_ld(in) * n);
  snprintf(what, sizeof what, "%s layer %d X8", label, l);
  check_cast(input, lt_ld(in), in, n, fwd8 ? v.x8 : NULL, ldi,
             w8 ? v.x8t : NULL, ldn, mx->scale, FP8_FORMAT_E4M3, 0, what);
  /* The forward GEMM from what it read. */
  double *copy = test_download_as(LT_DTYPE_BF16, net->d_params_copy, slab);
  double *y =
      test_download_as(LT_DTYPE_BF16, layer->d_y, (size_t)lt_ld(out) * n);
  uint8_t *mask = NULL;
  double *gelu_z = NULL;
  if (layer->hidden && gelu) {
    gelu_z =
        test_download_as(LT_DTYPE_BF16, layer->d_aux, (size_t)lt_ld(out) * n);
  } else if (layer->hidden) {
    mask = malloc(lt_aux_bytes(out, n));
    test_download(mask, layer->d_aux, lt_aux_bytes(out, n));
  }
  double *a = NULL, *b = NULL;
  lt_shape f;
  if (fwd8) {
    f = lt_shape_forward_fp8(in, out, n, layer->hidden, LT_FP8_E4M3,
                             LT_FP8_E4M3);
    f.fast_accum = fast_accum != 2;
    a = decoded(v.w8, (size_t)ldi * out, FP8_FORMAT_E4M3, mw->scale_inv);
    b = decoded(v.x8, (size_t)ldi * n, FP8_FORMAT_E4M3, mx->scale_inv);
  } else {
    f = lt_shape_forward(in, out, n, layer->hidden);
    f.type = LT_DTYPE_BF16;
  }
  test_call_result fwd = {.shape = lt_shape_activation(f, net->activation),
                          .a = fwd8 ? a : copy + lay->w_offset[l],
                          .b = fwd8 ? b : input,
                          .bias = copy + lay->b_offset[l],
                          .d = y,
                          .aux_out = mask,
                          .gelu_out = gelu_z};
  snprintf(what, sizeof what, "%s layer %d forward%s", label, l,
           fwd8 ? "" : " (bf16)");
  test_check_call(&fwd, what);
  free(a);
  free(b);
  /* The gradient's cast: this layer's dZ (the loss gradient at the top,
   * else the data GEMM's output of the layer above, masked here, or
   * already masked in place). */
  double *dz =
      test_download_as(LT_DTYPE_BF16, layer->d_dz, (size_t)lt_ld(out) * n);
  int top = l == depth - 1, in_place = mlp_fp8_masks_in_place(net, l);
  double *g = masked_gradient(dz, net, l, n, !top && !in_place);
  snprintf(what, sizeof what, "%s layer %d dZ8", label, l);
  check_cast(g, lt_ld(out), out, n, d8 ? v.dz8 : NULL, ldo, w8 ? v.dz8t : NULL,
             ldn, mg->scale, gf, gelu && !top && !in_place, what);
  double *grads = test_download_as(LT_DTYPE_BF16, net->d_grads, slab);
  snprintf(what, sizeof what, "%s layer %d bias gradient", label, l);
  check_bias_grad(grads + lay->b_offset[l], g, out, lt_ld(out), n, gelu && !top,
                  what);
  /* The weight GEMM. */
  test_call_result dw = {.d = grads + lay->w_offset[l]};
  a = b = NULL;
  if (w8) {
    dw.shape = lt_shape_backward_weights_fp8(in, out, n, LT_FP8_E4M3, glt);
    dw.shape.fast_accum = fast_accum == 1;
    dw.a = a = decoded(v.x8t, (size_t)ldn * in, FP8_FORMAT_E4M3, mx->scale_inv);
    dw.b = b = decoded(v.dz8t, (size_t)ldn * out, gf, mg->scale_inv);
  } else {
    dw.shape = lt_shape_backward_weights(in, out, n, 0);
    dw.shape.type = LT_DTYPE_BF16;
    dw.a = input;
    dw.b = g;
  }
  snprintf(what, sizeof what, "%s layer %d weights%s", label, l,
           w8 ? "" : " (bf16)");
  test_check_call(&dw, what);
  free(a);
  free(b);
  /* The data GEMM: into the layer below's dZ; raw, or masked there in
   * place (then held to DRELU / DGELU with the layer below's aux). */
  if (l > 0) {
    const linear_layer *below = &net->layers[l - 1];
    double *dx =
        test_download_as(LT_DTYPE_BF16, below->d_dz, (size_t)lt_ld(in) * n);
    test_call_result dd = {.d = dx};
    a = b = NULL;
    if (d8) {
      dd.shape = lt_shape_backward_data_fp8(in, out, n, LT_FP8_E4M3, glt);
      dd.shape.fast_accum = fast_accum == 1;
      dd.a = a =
          decoded(v.w8t, (size_t)ldo * in, FP8_FORMAT_E4M3, mw->scale_inv);
      dd.b = b = decoded(v.dz8, (size_t)ldo * n, gf, mg->scale_inv);
    } else {
      dd.shape = lt_shape_backward_data(in, out, n);
      dd.shape.type = LT_DTYPE_BF16;
      dd.shape.epilogue = LT_EPILOGUE_DEFAULT;
      dd.shape.aux_ld = 0;
      dd.a = copy + lay->w_offset[l];
      dd.b = g;
    }
    uint8_t *below_mask = NULL;
    double *below_z = NULL;
    if (mlp_fp8_masks_in_place(net, l - 1)) {
      dd.shape.epilogue = gelu ? LT_EPILOGUE_DGELU : LT_EPILOGUE_DRELU;
      dd.shape.aux_ld = gelu ? lt_ld(in) : lt_aux_ld(in);
      if (gelu) {
        dd.gelu_in = below_z = test_download_as(LT_DTYPE_BF16, below->d_aux,
                                                (size_t)lt_ld(in) * n);
      } else {
        below_mask = malloc(lt_aux_bytes(in, n));
        test_download(below_mask, below->d_aux, lt_aux_bytes(in, n));
        dd.aux_in = below_mask;
      }
    }
    snprintf(what, sizeof what, "%s layer %d data%s", label, l,
             d8 ? "" : " (bf16)");
    test_check_call(&dd, what);
    free(below_mask);
    free(below_z);
    free(dx);
    free(a);
    free(b);
  }
  free(g);
  free(dz);
  free(grads);
  free(mask);
  free(gelu_z);
  free(y);
  free(copy);
  free(below_y);
  free(w);
  free(master);
}

START_TEST(every_call_of_an_fp8_step_matches_the_oracle) {
  const net_case *c = &cases[_i / (RECIPES * MODES)];
  gpu_fp8_recipe recipe = recipes[_i / MODES % RECIPES];
  mlp_mode mode = modes[_i % MODES];
  gpu_context *ctx = fp8_context();
  mlp *net = NULL;
  mlp_options options = {.type = LT_DTYPE_BF16,
                         .activation = c->activation,
                         .pad_units = 1,
                         .pad_multiple = 16,
                         .fp8 = 1,
                         .fp8_recipe = recipe};
  ck_assert_int_eq(
      mlp_create(&net, c->widths, c->depth, c->max_batch, &options), 0);
  ck_assert_int_eq(mlp_init_params(net, ctx, seed + (uint64_t)_i), 0);
  test_rng rng;
  test_rng_init(&rng, seed + (uint64_t)_i);
  test_batch b = test_batch_make(&rng, c->widths[0], c->n, c->widths[c->depth],
                                 LT_DTYPE_BF16);
  double *d_stats = test_upload(NULL, 2 * sizeof(double));
  test_fill_device(d_stats, 0, 2 * sizeof(double));
  ck_assert_int_eq(mlp_forward(net, ctx, b.d_x, c->n, mode), 0);
  ck_assert_int_eq(
      mlp_backward(net, ctx, b.d_x, b.d_labels, c->n, mode, d_stats), 0);
  size_t slab = net->layout.slab_floats;
  double *first = test_download_as(LT_DTYPE_BF16, net->d_grads, slab);
  fp8_meta meta[3 * MLP_MAX_LAYERS];
  ck_assert_int_eq(mlp_fp8_read_meta(net, ctx, meta), 0);
  char label[96];
  snprintf(label, sizeof label, "case %d %s %s %s fast %d %s", _i,
           mlp_mode_name(mode), recipe.all_e4m3 ? "e4m3" : "hybrid",
           recipe.current ? "current" : "delayed", recipe.fast_accum,
           lt_activation_name(c->activation));
  size_t x_count = (size_t)lt_ld(c->widths[0]) * c->n;
  double *x = malloc(x_count * sizeof(double));
  for (size_t i = 0; i < x_count; i++)
    x[i] = b.h_x[i];
  for (int l = 0; l < c->depth; l++)
    check_layer(net, meta, x, l, c->n, recipe.fast_accum, label);
  /* The same step again: bit for bit the same gradients (the scales do not
   * move: the history rolls only in mlp_update, and a current amax is
   * the same amax again). */
  ck_assert_int_eq(mlp_forward(net, ctx, b.d_x, c->n, mode), 0);
  ck_assert_int_eq(
      mlp_backward(net, ctx, b.d_x, b.d_labels, c->n, mode, d_stats), 0);
  double *again = test_download_as(LT_DTYPE_BF16, net->d_grads, slab);
  ck_assert_msg(memcmp(first, again, slab * sizeof(double)) == 0,
                "%s: a repeated step changed the gradients", label);
  free(first);
  free(again);
  free(x);
  test_free(d_stats);
  test_batch_free(&b);
  mlp_destroy(net);
  gpu_context_destroy(ctx);
}
END_TEST

int main(void) {
  test_require_fp8("mlp_fp8");
  seed = test_seed("mlp_fp8");
  Suite *suite = suite_create("mlp_fp8");
  TCase *tc = tcase_create("fp8");
  tcase_set_timeout(tc, 900);
  tcase_add_loop_test(tc, every_call_of_an_fp8_step_matches_the_oracle, 0,
                      CASES * RECIPES * MODES);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 1);
}
