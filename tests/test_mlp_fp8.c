/* test_mlp_fp8.c: every FP8 copy of two real training passes of the FP8
 * step (layers/mlp_fp8.h), on the GPU, in three recipes and every mode:
 * the first pass (current scaling: it calibrates) and the second (delayed:
 * the forward GEMMs write the next layer's E4M3 input themselves in fused
 * and auto mode, and the loss kernel casts the output gradient). After
 * each pass every buffer is downloaded and held to layers/fp8.c with the
 * scales the GPU recorded: each cast (weights from the FP32 master, inputs
 * from a BF16 output, masked gradients) bit for bit in both layouts, the
 * transposed copies' padding rows zero; each FP8 output of a GEMM the cast
 * of a value within its accumulation's bound of the exact product of the
 * codes it read, with its amax; the bias gradients' partial sums; the
 * histories the first pass starts. A repeated second pass gives
 * the same gradients bit for bit. (test_mlp_fp8_calls.c: the step's GEMMs
 * exactly; test_mlp_fp8_step.c: the whole step against the oracle.)
 * GPU only: skips (77) without one, or on a GPU without FP8 (below 8.9). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layers/mlp_fp8.h"
#include "layers/oracle.h"
#include "lt/lt_gelu.h"
#include "tests/test_batch.h"
#include "tests/test_fp8_util.h"
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

/* Padded to 16: 784-144-112-16 and 784-112-16. */
static const net_case cases[] = {
    {{784, 129, 100, 10}, 3, 96, 96, LT_ACTIVATION_RELU},
    {{784, 129, 100, 10}, 3, 96, 37, LT_ACTIVATION_RELU}, /* k padded to 48 */
    {{784, 100, 10}, 2, 256, 256, LT_ACTIVATION_RELU},
    {{784, 129, 100, 10}, 3, 96, 96, LT_ACTIVATION_GELU},
};
enum { CASES = sizeof cases / sizeof cases[0], RECIPES = 3, MODES = 3 };
static const fp8_recipe recipes[RECIPES] = {{0, 0, FP8_FAST_ACCUM_FORWARD},
                                            {1, 1, FP8_FAST_ACCUM_ALL},
                                            {0, 0, FP8_FAST_ACCUM_NONE}};
static const mlp_mode modes[MODES] = {MLP_MODE_FUSED, MLP_MODE_UNFUSED,
                                      MLP_MODE_AUTO};

/* FP8 GEMMs accumulate in the tensor cores' narrower adder (test_call_check
 * .c: 2^-14 in place of FP32's 2^-24): the worst case of the sum's error
 * is 2 (k + 2) 2^-14 sum |a b|. */
#define FP8_ACCUMULATION_U (1.0 / 16384.0)

/* The training scaling state's tensor `role` of layer l. */
static const fp8_meta *meta_at(const fp8_meta *meta, const mlp *net,
                               mlp_fp8_role role, int l) {
  return &meta[role * net->layout.depth + l];
}

/* Layer l's gradient source as the cast reads it: its BF16 dZ, masked by
 * its ReLU bits (or times GELU', rounded to BF16) below the top. */
static double *gradient_source(const mlp *net, int l, int n) {
  const linear_layer *layer = &net->layers[l];
  int ld = lt_ld(layer->out);
  size_t count = (size_t)ld * n;
  double *g = test_download_as(LT_DTYPE_BF16, layer->d_dz, count);
  if (!layer->hidden) return g;
  if (layer->activation == LT_ACTIVATION_GELU) {
    double *z = test_download_as(LT_DTYPE_BF16, layer->d_aux, count);
    for (size_t i = 0; i < count; i++)
      g[i] = test_round(LT_DTYPE_BF16, (float)g[i] * lt_gelu_grad((float)z[i]));
    free(z);
    return g;
  }
  size_t bytes = lt_aux_bytes(layer->out, n);
  uint8_t *bits = test_fp8_codes(layer->d_aux, bytes);
  for (int j = 0; j < n; j++)
    for (int i = 0; i < layer->out; i++)
      if (!oracle_mask_bit(bits, lt_aux_ld(layer->out), i, j))
        g[(size_t)j * ld + i] = 0.0;
  free(bits);
  return g;
}

/* The bias gradient's partials of layer l against the row sums of its
 * gradient source per tile (FP32 sums, 2 (128 + 2) 2^-24 of their
 * magnitudes; GELU: one BF16 bit of each term more). */
static void check_partials(const mlp *net, const double *g, int l, int n,
                           const char *label) {
  const linear_layer *layer = &net->layers[l];
  int tiles = fp8_cast_tiles(n), ld = lt_ld(layer->out);
  float *p = malloc((size_t)tiles * layer->out * sizeof(float));
  test_download(p, net->fp8_tensors->partials[l],
                (size_t)tiles * layer->out * sizeof(float));
  int gelu = layer->hidden && layer->activation == LT_ACTIVATION_GELU;
  for (int t = 0; t < tiles; t++)
    for (int i = 0; i < layer->out; i++) {
      double ref = 0, mag = 0;
      for (int j = t * FP8_CAST_TILE; j < n && j < (t + 1) * FP8_CAST_TILE;
           j++) {
        ref += g[(size_t)j * ld + i];
        mag += fabs(g[(size_t)j * ld + i]);
      }
      double bound = 260 * ldexp(mag, -24) + (gelu ? ldexp(mag, -7) : 0.0);
      ck_assert_msg(fabs(p[(size_t)t * layer->out + i] - ref) <= bound,
                    "%s layer %d: partial (%d, tile %d) = %.9g, want %.9g",
                    label, l + 1, i, t, p[(size_t)t * layer->out + i], ref);
    }
  free(p);
}

/* X8 of layer l + 1 as layer l's forward GEMM wrote it: each code the
 * cast, with the scale it wrote with, of a value the accumulation allows
 * around the exact result from the codes the GEMM read (W8, X8 and their
 * scale_inv, the BF16 bias, the epilogue): test_fp8_code_within, not only
 * the code next to the exact one, since near zero E4M3's steps (2^-9 /
 * scale at the bottom) are finer than what the accumulation leaves open
 * (the H200 wrote codes 2 to 14 steps from the exact cast there, 2^-16 sum
 * |a b| away, within the bound's 2 (k + 2) 2^-14 sum |a b|); its amax
 * within the largest bound; X8T its transpose. */
static void check_fp8_output(const mlp *net, const fp8_meta *meta,
                             const void *d_x, int l, int n, const char *label) {
  const linear_layer *layer = &net->layers[l];
  int in = layer->in, out = layer->out, ldi = lt_ld_fp8(in);
  test_fp8_view v = test_fp8_layer(net, l, d_x, n),
                next = test_fp8_layer(net, l + 1, d_x, n);
  float sw = meta_at(meta, net, MLP_FP8_WEIGHTS, l)->scale_inv;
  float sx = l ? meta_at(meta, net, MLP_FP8_INPUT, l)->scale_inv : 0.0f;
  if (l == 0) test_download(&sx, d_x, sizeof sx);
  const fp8_meta *y = meta_at(meta, net, MLP_FP8_INPUT, l + 1);
  double *w = test_fp8_decoded(v.w8, (size_t)ldi * out, LT_FP8_E4M3, sw);
  double *x = test_fp8_decoded(v.x8, (size_t)ldi * n, LT_FP8_E4M3, sx);
  double *b = test_download_as(LT_DTYPE_BF16,
                               (const char *)net->d_params_copy +
                                   net->layout.b_offset[l] * 2,
                               (size_t)out);
  uint8_t *q = test_fp8_codes(next.x8, (size_t)lt_ld_fp8(out) * n);
  int gelu = layer->activation == LT_ACTIVATION_GELU;
  double amax = 0, amax_bound = 0;
  for (int j = 0; j < n; j++)
    for (int i = 0; i < out; i++) {
      double z = b[i], mag = fabs(b[i]);
      for (int p = 0; p < in; p++) {
        z += w[(size_t)i * ldi + p] * x[(size_t)j * ldi + p];
        mag += fabs(w[(size_t)i * ldi + p] * x[(size_t)j * ldi + p]);
      }
      double acc = 2.0 * (in + 2) * FP8_ACCUMULATION_U * mag;
      double d = gelu ? oracle_gelu(z) : z > 0 ? z : 0.0;
      double bound = gelu ? 1.13 * acc + 0.5 * fabs(z) * 4.9e-4 : acc;
      amax = fmax(amax, fabs(d));
      amax_bound = fmax(amax_bound, bound);
      uint8_t got = q[(size_t)j * lt_ld_fp8(out) + i];
      /* The GPU's z lies within acc of z; ReLU is monotone, so its output
       * within [relu(z - acc), relu(z + acc)]. */
      int near = gelu ? test_fp8_code_near(got, d, bound, y->scale, LT_FP8_E4M3)
                      : test_fp8_code_within(got, fmax(z - acc, 0.0),
                                             fmax(z + acc, 0.0), y->scale,
                                             LT_FP8_E4M3);
      ck_assert_msg(near,
                    "%s layer %d's FP8 output (%d,%d): 0x%02x (%g), the cast "
                    "of %.9g at scale %g is 0x%02x (accumulation bound %.3g)",
                    label, l + 1, i, j, got,
                    fp8_decode_scaled(got, 1.0f / y->scale, LT_FP8_E4M3), d,
                    y->scale,
                    fp8_encode_scaled((float)d, y->scale, LT_FP8_E4M3), bound);
    }
  ck_assert_msg(fabs(y->amax - amax) <= amax_bound,
                "%s layer %d: AMAX_D %.9g, the exact output's %.9g", label,
                l + 1, y->amax, amax);
  /* X8T: the same codes transposed, the padding rows zero. */
  uint8_t *t = test_fp8_codes(next.x8t, (size_t)lt_ld_fp8(n) * out);
  for (int i = 0; i < out; i++)
    for (int j = 0; j < lt_ld_fp8(n); j++) {
      uint8_t want = j < n ? q[(size_t)j * lt_ld_fp8(out) + i] : 0;
      ck_assert_msg(t[(size_t)i * lt_ld_fp8(n) + j] == want,
                    "%s layer %d: X8T (%d,%d) 0x%02x, X8 0x%02x", label, l + 2,
                    j, i, t[(size_t)i * lt_ld_fp8(n) + j], want);
    }
  free(t);
  free(q);
  free(b);
  free(x);
  free(w);
}

/* Every copy a training pass left (the header's list). */
static void check_pass(const mlp *net, gpu_context *ctx, const void *d_x, int n,
                       mlp_mode mode, int first, const char *label) {
  const mlp_layout *lay = &net->layout;
  int depth = lay->depth;
  fp8_meta meta[3 * MLP_MAX_LAYERS];
  ck_assert_int_eq(mlp_fp8_read_meta(net, ctx, meta), 0);
  lt_fp8 gf = fp8_recipe_gradient(&net->fp8_tensors->recipe);
  float *master = malloc(lay->slab_floats * sizeof(float));
  test_download(master, net->d_params, lay->slab_floats * sizeof(float));
  char what[160];
  for (int l = 0; l < depth; l++) {
    const linear_layer *layer = &net->layers[l];
    int in = layer->in, out = layer->out;
    test_fp8_view v = test_fp8_layer(net, l, d_x, n);
    /* W8, W8T from the master weights. */
    double *w = malloc((size_t)lt_ld(in) * out * sizeof(double));
    for (size_t i = 0; i < (size_t)lt_ld(in) * out; i++)
      w[i] = master[lay->w_offset[l] + i];
    snprintf(what, sizeof what, "%s layer %d W8", label, l + 1);
    test_fp8_check_cast(
        w, lt_ld(in), in, out, v.w8, lt_ld_fp8(in), v.w8t, lt_ld_fp8(out),
        1.0f / meta_at(meta, net, MLP_FP8_WEIGHTS, l)->scale_inv, LT_FP8_E4M3,
        0, what);
    free(w);
    /* X8 and X8T of the layer above: the GEMM's own, or cast. */
    if (layer->hidden && mlp_fp8_writes_fp8(net, l, mode)) {
      check_fp8_output(net, meta, d_x, l, n, label);
    } else if (layer->hidden) {
      test_fp8_view up = test_fp8_layer(net, l + 1, d_x, n);
      double *y =
          test_download_as(LT_DTYPE_BF16, layer->d_y, (size_t)lt_ld(out) * n);
      snprintf(what, sizeof what, "%s layer %d X8", label, l + 2);
      test_fp8_check_cast(
          y, lt_ld(out), out, n, up.x8, lt_ld_fp8(out), up.x8t, lt_ld_fp8(n),
          1.0f / meta_at(meta, net, MLP_FP8_INPUT, l + 1)->scale_inv,
          LT_FP8_E4M3, 0, what);
      free(y);
    }
    /* dZ8 (above layer 0), dZ8T and the partials. */
    double *g = gradient_source(net, l, n);
    snprintf(what, sizeof what, "%s layer %d dZ8", label, l + 1);
    int gelu = layer->hidden && layer->activation == LT_ACTIVATION_GELU;
    test_fp8_check_cast(
        g, lt_ld(out), out, n, v.dz8, lt_ld_fp8(out), v.dz8t, lt_ld_fp8(n),
        1.0f / meta_at(meta, net, MLP_FP8_GRADIENT, l)->scale_inv, gf, gelu,
        what);
    check_partials(net, g, l, n, label);
    free(g);
  }
  /* The first pass of delayed scaling starts every input's (above layer
   * 0) and gradient's history and takes its scale from it. */
  int calibrates = first && !net->fp8_tensors->recipe.current;
  for (int t = depth + 1; calibrates && t < 3 * depth; t++) {
    float amax = 0.0f, want = meta[t].scale;
    for (int h = 0; h < FP8_HISTORY; h++)
      amax = fmaxf(amax, meta[t].history[h]);
    fp8_scale_from_amax(&want, amax, t >= 2 * depth ? gf : LT_FP8_E4M3, NULL,
                        0);
    ck_assert_msg(amax > 0.0f && meta[t].scale == want,
                  "%s tensor %d: scale %g, history amax %g (want scale %g)",
                  label, t, meta[t].scale, amax, want);
  }
  free(master);
}

START_TEST(two_passes_cast_as_the_reference) {
  const net_case *c = &cases[_i / (RECIPES * MODES)];
  fp8_recipe recipe = recipes[_i / MODES % RECIPES];
  mlp_mode mode = modes[_i % MODES];
  mlp_options options = {.type = LT_DTYPE_BF16,
                         .activation = c->activation,
                         .pad_units = 1,
                         .pad_multiple = 16,
                         .fp8_recipe = recipe};
  test_fp8_run r;
  test_fp8_run_open(&r, c->widths, c->depth, c->max_batch, c->n, &options,
                    seed + (uint64_t)_i);
  mlp *net = r.net;
  char label[128];
  for (int pass = 0; pass < 2; pass++) {
    snprintf(label, sizeof label, "case %d %s %s %s fast %d %s, pass %d", _i,
             mlp_mode_name(mode), recipe.all_e4m3 ? "e4m3" : "hybrid",
             recipe.current ? "current" : "delayed", (int)recipe.fast_accum,
             lt_activation_name(c->activation), pass + 1);
    test_fp8_run_passes(&r, 1, mode);
    check_pass(net, r.ctx, r.x.d_block, c->n, mode, pass == 0, label);
  }
  /* Delayed scaling in fused and auto mode wrote FP8 outputs (with GELU,
   * where cuBLASLt plans a BF16 aux beside an E4M3 D: printed). */
  int writes = mlp_fp8_writes_fp8(net, 0, mode);
  if (c->activation == LT_ACTIVATION_RELU)
    ck_assert_msg(writes == (!recipe.current && mode != MLP_MODE_UNFUSED),
                  "%s: layer 1's forward writes FP8: %d (a refusal is named "
                  "on stderr above)",
                  label, writes);
  else
    printf("%s: layer 1's forward writes %s\n", label,
           writes ? "e4m3" : "bf16");
  /* The same pass again: the same gradients, bit for bit (no roll between:
   * the scales stay; AMAX_D overwrites; the casts' amax is a max). */
  size_t slab = net->layout.slab_floats;
  double *first = test_download_as(LT_DTYPE_BF16, net->d_grads, slab);
  test_fp8_run_passes(&r, 1, mode);
  double *again = test_download_as(LT_DTYPE_BF16, net->d_grads, slab);
  ck_assert_msg(memcmp(first, again, slab * sizeof(double)) == 0,
                "%s: a repeated pass changed the gradients", label);
  free(first);
  free(again);
  test_fp8_run_close(&r);
}
END_TEST

int main(void) {
  test_require_fp8("mlp_fp8");
  seed = test_seed("mlp_fp8");
  Suite *suite = suite_create("mlp_fp8");
  TCase *tc = tcase_create("fp8");
  tcase_set_timeout(tc, 900);
  tcase_add_loop_test(tc, two_passes_cast_as_the_reference, 0,
                      CASES * RECIPES * MODES);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 1);
}
