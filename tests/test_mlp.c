/* test_mlp.c: whole MLP steps on the GPU against the oracle: fused and
 * unfused gradients against the oracle and each other (full and partial
 * batches, FP32 and TF32), the loss, the correct count and the ReLU masks.
 * (Training runs: test_mlp_train.c.) GPU only: skips (77) without one. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layers/mlp.h"
#include "layers/oracle.h"
#include "test_batch.h"
#include "test_gpu.h"
#include "test_util.h"

/* Gradients are compared tensor by tensor as ||gpu - ref|| / ||ref||.
 * FP32: each layer's sums of <= 784 products carry relative errors of a
 * few 1e-7 (sqrt(k) u), compounded over 3 layers and the softmax: ~1e-6.
 * 1e-4 leaves a hundredfold margin; a missing bias, a wrong mask or a
 * transposed operand gives errors of 1e-1 or more. TF32 rounds every input
 * to 10 mantissa bits (u = 2^-11 ~ 5e-4); the first layer's weight
 * gradient passes three TF32 matmuls and a batch sum with heavy
 * cancellation (|sum| << sum of |terms|), and measured 2.2e-2 at
 * 784-256-128-10, batch 256. 0.1 still fails every structural error this
 * test is for (those are >= 0.5). That TF32 really runs is proven by its
 * arithmetic in test_lt_rules (tf32_context_computes_in_tf32). */
#define GRAD_RTOL_FP32 1e-4
#define GRAD_RTOL_TF32 1e-1
/* Decisions (a ReLU bit, an argmax) may go either way where the GPU's
 * value is within its error of the threshold. The error of a
 * pre-activation or logit is far below these fractions of the layer's RMS
 * value (FP32: ~1e-6 relative, as above; TF32: ~1e-3), so decisions are
 * compared only where the oracle's margin exceeds them; the rest are
 * counted and must stay a small share (a wrong mask is wrong everywhere). */
#define DECISION_RTOL_FP32 1e-4
#define DECISION_RTOL_TF32 1e-2

static uint64_t seed;

typedef struct net_case {
  int widths[5];
  int depth;
  int max_batch, n;
  int tf32;
} net_case;

static const net_case cases[] = {
    {{784, 129, 100, 10}, 3, 96, 96, 0},
    {{784, 129, 100, 10}, 3, 96, 37, 0}, /* partial last batch */
    {{37, 7, 10}, 2, 256, 256, 0},
    {{784, 1, 10}, 2, 1, 1, 0},
    {{127, 10}, 1, 33, 33, 0},             /* no hidden layer */
    {{784, 256, 128, 10}, 3, 256, 256, 1}, /* TF32 */
};

/* Forward + backward (no update) in one mode; returns the host gradients
 * and the ReLU masks. */
static void gpu_step(float *grads, uint8_t *masks, double *stats, mlp *net,
                     gpu_context *ctx, const test_batch *b, int n,
                     mlp_mode mode) {
  double *d_stats = test_upload(NULL, 2 * sizeof(double));
  test_fill_device(d_stats, 0, 2 * sizeof(double));
  ck_assert_int_eq(mlp_forward(net, ctx, b->d_x, n, mode), 0);
  ck_assert_int_eq(
      mlp_backward(net, ctx, b->d_x, b->d_labels, n, mode, d_stats), 0);
  test_download(grads, net->d_grads, net->layout.slab_floats * sizeof(float));
  test_download(stats, d_stats, 2 * sizeof(double));
  for (int l = 0; l + 1 < net->layout.depth; l++) {
    size_t bytes = lt_aux_bytes(net->layers[l].out, n);
    test_download(masks, net->layers[l].d_mask, bytes);
    masks += bytes;
  }
  test_free(d_stats);
}

static double rms(const double *x, size_t count) {
  double sum = 0;
  for (size_t i = 0; i < count; i++)
    sum += x[i] * x[i];
  return count ? sqrt(sum / (double)count) : 0.0;
}

/* Compares the masks of every hidden layer bit by bit where the oracle's
 * |z| exceeds rtol * RMS(z) of that layer; returns the bits skipped. */
static int compare_masks(const uint8_t *got, const uint8_t *want,
                         const double *preacts, const mlp_layout *lay, int n,
                         double rtol, const char *what) {
  int skipped = 0;
  for (int l = 0; l + 1 < lay->depth; l++) {
    int rows = lay->widths[l + 1], aux_ld = lt_aux_ld(rows);
    double bound = rtol * rms(preacts, (size_t)rows * n);
    for (int j = 0; j < n; j++)
      for (int i = 0; i < rows; i++) {
        if (fabs(preacts[(size_t)j * rows + i]) <= bound) {
          skipped++;
          continue;
        }
        ck_assert_msg(oracle_mask_bit(got, aux_ld, i, j) ==
                          oracle_mask_bit(want, aux_ld, i, j),
                      "%s layer %d: mask bit (%d,%d), z = %g", what, l, i, j,
                      preacts[(size_t)j * rows + i]);
      }
    got += lt_aux_bytes(rows, n);
    want += lt_aux_bytes(rows, n);
    preacts += (size_t)rows * n;
  }
  return skipped;
}

/* Samples whose two largest logits are within rtol * RMS(logits): their
 * argmax may differ between the GPU and the oracle. */
static int ambiguous_samples(const double *logits, int classes, int n,
                             double rtol) {
  double bound = rtol * rms(logits, (size_t)classes * n);
  int count = 0;
  for (int j = 0; j < n; j++) {
    const double *z = logits + (size_t)j * classes;
    double first = -INFINITY, second = -INFINITY;
    for (int c = 0; c < classes; c++) {
      if (z[c] > first) {
        second = first;
        first = z[c];
      } else if (z[c] > second) {
        second = z[c];
      }
    }
    count += first - second <= bound;
  }
  return count;
}

/* Every gradient tensor, fused and unfused, against the oracle and each
 * other. */
static void compare_grads(const float *fused, const float *unfused,
                          const double *want, const mlp_layout *lay,
                          double rtol, int case_index) {
  for (int l = 0; l < lay->depth; l++) {
    size_t offsets[2] = {lay->w_offset[l], lay->b_offset[l]};
    size_t counts[2] = {(size_t)lay->widths[l] * lay->widths[l + 1],
                        (size_t)lay->widths[l + 1]};
    for (int t = 0; t < 2; t++) {
      const char *name = t ? "db" : "dW";
      double ef =
          test_rel_error(fused + offsets[t], want + offsets[t], counts[t]);
      double eu =
          test_rel_error(unfused + offsets[t], want + offsets[t], counts[t]);
      ck_assert_msg(ef <= rtol,
                    "case %d layer %d %s: fused vs oracle %.3g > %.3g",
                    case_index, l, name, ef, rtol);
      ck_assert_msg(eu <= rtol,
                    "case %d layer %d %s: unfused vs oracle %.3g > %.3g",
                    case_index, l, name, eu, rtol);
      double fu = 0, size = 0;
      for (size_t i = 0; i < counts[t]; i++) {
        double d = fused[offsets[t] + i] - unfused[offsets[t] + i];
        fu += d * d;
        size += (double)fused[offsets[t] + i] * fused[offsets[t] + i];
      }
      ck_assert_msg(sqrt(fu) <= rtol * (sqrt(size) + 1e-300),
                    "case %d layer %d %s: fused vs unfused", case_index, l,
                    name);
    }
  }
}

START_TEST(step_matches_oracle_fused_and_unfused) {
  const net_case *c = &cases[_i];
  test_rng rng;
  test_rng_init(&rng, seed + (uint64_t)_i);
  gpu_context *ctx = test_context(GPU_AUTOTUNE_EXACT, c->tf32);
  ck_assert_ptr_nonnull(ctx);
  mlp *net = NULL;
  ck_assert_int_eq(mlp_create(&net, c->widths, c->depth, c->max_batch), 0);
  ck_assert_int_eq(mlp_init_params(net, ctx, seed + (uint64_t)_i), 0);
  const mlp_layout *lay = &net->layout;
  int classes = c->widths[c->depth];
  test_batch b = test_batch_make(&rng, c->widths[0], c->n, classes);

  size_t slab = lay->slab_floats;
  float *h_params = malloc(slab * sizeof(float));
  test_download(h_params, net->d_params, slab * sizeof(float));
  double *params = malloc(slab * sizeof(double));
  for (size_t i = 0; i < slab; i++)
    params[i] = h_params[i];
  double *x = malloc((size_t)c->widths[0] * c->n * sizeof(double));
  for (size_t i = 0; i < (size_t)c->widths[0] * c->n; i++)
    x[i] = b.h_x[i];
  size_t mask_bytes = oracle_mask_bytes(lay, c->n);
  oracle_step want = {
      .grads = malloc(slab * sizeof(double)),
      .masks = malloc(mask_bytes + 1),
      .preacts = malloc((oracle_preact_count(lay, c->n) + 1) * sizeof(double)),
      .logits = malloc((size_t)classes * c->n * sizeof(double))};
  ck_assert_int_eq(oracle_mlp_step(&want, lay, params, x, b.h_labels, c->n), 0);

  float *fused = malloc(slab * sizeof(float));
  float *unfused = malloc(slab * sizeof(float));
  uint8_t *fused_masks = malloc(mask_bytes + 1);
  uint8_t *unfused_masks = malloc(mask_bytes + 1);
  double fused_stats[2], unfused_stats[2];
  gpu_step(fused, fused_masks, fused_stats, net, ctx, &b, c->n, MLP_MODE_FUSED);
  gpu_step(unfused, unfused_masks, unfused_stats, net, ctx, &b, c->n,
           MLP_MODE_UNFUSED);

  compare_grads(fused, unfused, want.grads, lay,
                c->tf32 ? GRAD_RTOL_TF32 : GRAD_RTOL_FP32, _i);
  double loss_tol = c->tf32 ? 1e-2 : 1e-5;
  ck_assert_msg(fabs(fused_stats[0] - want.loss_sum) <=
                    loss_tol * fabs(want.loss_sum),
                "loss %.9g vs oracle %.9g", fused_stats[0], want.loss_sum);
  ck_assert_msg(
      fabs(unfused_stats[0] - want.loss_sum) <= loss_tol * fabs(want.loss_sum),
      "unfused loss %.9g vs oracle %.9g", unfused_stats[0], want.loss_sum);
  /* Decisions: masks and argmax, away from their thresholds. */
  double decide = c->tf32 ? DECISION_RTOL_TF32 : DECISION_RTOL_FP32;
  int ambiguous = ambiguous_samples(want.logits, classes, c->n, decide);
  for (int m = 0; m < 2; m++) {
    double got = m ? unfused_stats[1] : fused_stats[1];
    ck_assert_msg(fabs(got - want.correct) <= ambiguous,
                  "case %d %s: %g correct, oracle %d (%d ambiguous)", _i,
                  m ? "unfused" : "fused", got, want.correct, ambiguous);
  }
  size_t bits = oracle_preact_count(lay, c->n);
  int skipped = compare_masks(fused_masks, want.masks, want.preacts, lay, c->n,
                              decide, "fused");
  compare_masks(unfused_masks, want.masks, want.preacts, lay, c->n, decide,
                "unfused");
  ck_assert_msg(skipped <= 0.02 * (double)bits + 1,
                "case %d: %d of %zu mask bits near the kink", _i, skipped,
                bits);
  free(h_params);
  free(params);
  free(x);
  free(want.grads);
  free(want.masks);
  free(want.preacts);
  free(want.logits);
  free(fused);
  free(unfused);
  free(fused_masks);
  free(unfused_masks);
  test_batch_free(&b);
  mlp_destroy(net);
  gpu_context_destroy(ctx);
}
END_TEST

int main(void) {
  test_require_gpu("mlp");
  seed = test_seed("mlp");
  Suite *suite = suite_create("mlp");
  TCase *tc = tcase_create("mlp");
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, step_matches_oracle_fused_and_unfused, 0,
                      (int)(sizeof cases / sizeof cases[0]));
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 1);
}
