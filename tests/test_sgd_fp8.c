/* test_sgd_fp8.c: SGD writing the FP8 weights (layers/sgd_fp8.h) on the
 * GPU, against sgd_update and layers/fp8.c bit for bit, with the bias
 * gradients summed from partials and the roll in its last block. GPU
 * only: skips (77) without one, or on a GPU without FP8 (below 8.9). */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "layers/fp8_cast.h"
#include "layers/sgd_fp8.h"
#include "tests/test_fp8_ref.h"
#include "tests/test_gpu.h"
#include "tests/test_types.h"
#include "tests/test_util.h"

static uint64_t seed;

/* sgd_fp8_update: the FP32 master weights and momentum bit for bit those
 * of sgd_update on the same slabs (the vector's gradient summed from two
 * tiles of partials, in tile order, rounded once to BF16, as the step
 * writes it into the slab); each matrix's FP8 copies (both layouts)
 * fp8_encode of the new weights with the scale its state holds, its
 * scale_inv 1 / that scale; the vectors' BF16 copy; then the roll of all
 * six tensors (the new amax into the history, the next scale, the step).
 * Two matrices: 100 x 68 (ld 104: partial row and column tiles) and
 * 64 x 16, and a vector of 37; a matrix whose rows or columns are not
 * multiples of 4 refused. */
START_TEST(sgd_fp8_matches_sgd_and_casts) {
  enum { SLAB = 104 * 68 + 64 * 16 + 64 };
  const size_t offsets[3] = {0, 104 * 68, 104 * 68 + 64 * 16};
  const int rows[2] = {100, 64}, cols[2] = {68, 16}, lds[2] = {104, 64};
  test_rng rng;
  test_rng_init(&rng, seed);
  float *p = calloc(SLAB, sizeof(float)), *v = calloc(SLAB, sizeof(float));
  float *g = calloc(SLAB, sizeof(float));
  for (int i = 0; i < SLAB; i++) {
    p[i] = (float)test_rng_uniform(&rng, -0.3, 0.3);
    v[i] = (float)test_rng_uniform(&rng, -0.1, 0.1);
    g[i] = test_round(LT_DTYPE_BF16, (float)test_rng_uniform(&rng, -1, 1));
  }
  /* Matrix 0's padding rows 100 .. 103 are zero, as a network's are. */
  for (int c = 0; c < 68; c++)
    for (int r = 100; r < 104; r++)
      p[c * 104 + r] = v[c * 104 + r] = g[c * 104 + r] = 0.0f;
  /* The vector's gradient: the sum of two tiles of partials. */
  float partials[2 * 37];
  for (int i = 0; i < 2 * 37; i++)
    partials[i] = (float)test_rng_uniform(&rng, -1, 1);
  for (int i = 0; i < 37; i++)
    g[offsets[2] + i] =
        test_round(LT_DTYPE_BF16, partials[i] + partials[37 + i]);
  float *d_partials = test_upload(partials, sizeof partials);
  const float lr = 0.05f;
  float *d_lr = test_upload(&lr, sizeof lr);
  void *d_g = test_upload_as(LT_DTYPE_BF16, g, SLAB);
  float *want_p = test_upload(p, SLAB * sizeof(float));
  float *want_v = test_upload(v, SLAB * sizeof(float));
  void *want_copy = test_upload(NULL, SLAB * 2);
  sgd_slabs plain = {.d_params = want_p,
                     .d_velocity = want_v,
                     .d_grads = d_g,
                     .d_copy = want_copy,
                     .type = LT_DTYPE_BF16,
                     .count = SLAB};
  ck_assert_int_eq(sgd_update(&plain, d_lr, 0.9f, 0.5f, NULL, 0), 0);
  float *d_p = test_upload(p, SLAB * sizeof(float));
  float *d_v = test_upload(v, SLAB * sizeof(float));
  void *d_g8 = test_upload_as(LT_DTYPE_BF16, g, SLAB);
  test_fill_device((char *)d_g8 + offsets[2] * 2, 0, 37 * 2); /* summed */
  void *d_copy = test_upload(NULL, SLAB * 2);
  test_fill_device(d_copy, 0, SLAB * 2);
  /* Two layers' states (W, X, dZ each): the weights' scales as the last
   * roll left them. */
  fp8_meta meta[6];
  memset(meta, 0, sizeof meta);
  for (int t = 0; t < 6; t++)
    meta[t].scale = meta[t].scale_inv = 1.0f;
  meta[0].scale = 512.0f;   /* amax 0.5's */
  meta[1].scale = 32768.0f; /* amax 0.01's: the new weights saturate */
  meta[0].history[2] = 0.5f;
  meta[1].history[9] = 0.01f;
  fp8_meta *d_meta = test_upload(meta, sizeof meta);
  uint32_t counters[2] = {7, 0}; /* step, finished blocks */
  uint32_t *d_counters = test_upload(counters, sizeof counters);
  uint8_t *d_w8[2], *d_w8t[2];
  sgd_fp8_args a = {.slabs = {.d_params = d_p,
                              .d_velocity = d_v,
                              .d_grads = d_g8,
                              .d_copy = d_copy,
                              .type = LT_DTYPE_BF16,
                              .count = SLAB},
                    .matrices = 2,
                    .vectors = 1,
                    .roll = {.d_meta = d_meta,
                             .layers = 2,
                             .gradient = LT_FP8_E5M2,
                             .d_step = d_counters},
                    .d_finished = d_counters + 1};
  for (int m = 0; m < 2; m++) {
    int ld8 = (rows[m] + 15) / 16 * 16, ld8t = (cols[m] + 15) / 16 * 16;
    d_w8[m] = test_upload(NULL, (size_t)ld8 * cols[m]);
    d_w8t[m] = test_upload(NULL, (size_t)ld8t * rows[m]);
    a.m[m] = (sgd_fp8_matrix){.offset = offsets[m],
                              .ld = lds[m],
                              .rows = rows[m],
                              .cols = cols[m],
                              .d_w8 = d_w8[m],
                              .ld_w8 = ld8,
                              .d_w8t = d_w8t[m],
                              .ld_w8t = ld8t,
                              .d_meta = d_meta + m};
  }
  a.v[0] = (sgd_fp8_vector){
      .offset = offsets[2], .length = 37, .d_partials = d_partials, .tiles = 2};
  a.m[0].rows = 98;
  ck_assert_int_eq(sgd_fp8_update(&a, d_lr, 0.9f, 0.5f, NULL, 0), -1);
  a.m[0].rows = 100;
  a.m[0].cols = 70;
  ck_assert_int_eq(sgd_fp8_update(&a, d_lr, 0.9f, 0.5f, NULL, 0), -1);
  a.m[0].cols = 68;
  ck_assert_int_eq(sgd_fp8_update(&a, d_lr, 0.9f, 0.5f, NULL, 0), 0);
  float *got_p = malloc(SLAB * sizeof(float)),
        *exp_p = malloc(SLAB * sizeof(float));
  float *got_v = malloc(SLAB * sizeof(float)),
        *exp_v = malloc(SLAB * sizeof(float));
  test_download(got_p, d_p, SLAB * sizeof(float));
  test_download(exp_p, want_p, SLAB * sizeof(float));
  test_download(got_v, d_v, SLAB * sizeof(float));
  test_download(exp_v, want_v, SLAB * sizeof(float));
  double *copy = test_download_as(LT_DTYPE_BF16, d_copy, SLAB);
  double *grads = test_download_as(LT_DTYPE_BF16, d_g8, SLAB);
  test_download(meta, d_meta, sizeof meta);
  test_download(counters, d_counters, sizeof counters);
  ck_assert_uint_eq(counters[0], 8); /* rolled once */
  ck_assert_uint_eq(counters[1], 0); /* the counter left for the next */
  for (int m = 0; m < 2; m++) {
    int ld8 = (rows[m] + 15) / 16 * 16, ld8t = (cols[m] + 15) / 16 * 16;
    uint8_t *q = malloc((size_t)ld8 * cols[m]);
    uint8_t *qt = malloc((size_t)ld8t * rows[m]);
    test_download(q, d_w8[m], (size_t)ld8 * cols[m]);
    test_download(qt, d_w8t[m], (size_t)ld8t * rows[m]);
    float scale = m ? 32768.0f : 512.0f, amax = 0.0f;
    ck_assert_msg(meta[m].scale_inv == 1.0f / scale,
                  "matrix %d: scale_inv %g, want 1 / the scale used, %g", m,
                  meta[m].scale_inv, 1.0 / scale);
    test_fp8_counts lost = {0, 0, 0};
    for (int c = 0; c < cols[m]; c++)
      for (int r = 0; r < lds[m]; r++) {
        size_t at = offsets[m] + (size_t)c * lds[m] + r;
        ck_assert_msg(memcmp(&got_p[at], &exp_p[at], 4) == 0 &&
                          memcmp(&got_v[at], &exp_v[at], 4) == 0,
                      "matrix %d (%d,%d): p %.9g v %.9g, sgd_update %.9g %.9g",
                      m, r, c, got_p[at], got_v[at], exp_p[at], exp_v[at]);
        ck_assert(copy[at] == 0.0); /* no BF16 weights: no call reads them */
        if (r >= rows[m]) continue;
        test_fp8_counts one;
        uint8_t code;
        test_fp8_encode_array(&code, &one, &got_p[at], 1, scale, LT_FP8_E4M3);
        lost.saturated += one.saturated;
        lost.flushed += one.flushed;
        amax = fmaxf(amax, fabsf(got_p[at]));
        ck_assert_msg(
            q[(size_t)c * ld8 + r] == code && qt[(size_t)r * ld8t + c] == code,
            "matrix %d (%d,%d): 0x%02x / 0x%02x, want 0x%02x", m, r, c,
            q[(size_t)c * ld8 + r], qt[(size_t)r * ld8t + c], code);
      }
    /* Rolled: the new amax in slot 7, the next scale from the history. */
    float next = scale;
    fp8_scale_from_amax(&next, fmaxf(amax, m ? 0.01f : 0.5f), LT_FP8_E4M3, NULL,
                        0);
    ck_assert_msg(meta[m].history[7] == amax && meta[m].amax == 0.0f &&
                      meta[m].scale == next,
                  "matrix %d: history %g (amax %g), scale %g, want %g", m,
                  meta[m].history[7], amax, meta[m].scale, next);
    ck_assert_uint_eq(meta[m].saturated, lost.saturated);
    ck_assert_uint_eq(meta[m].flushed, lost.flushed);
    ck_assert_uint_eq(meta[m].casts, 1);
    if (m == 1) ck_assert_uint_gt(meta[m].saturated, 0);
    free(q);
    free(qt);
    test_free(d_w8[m]);
    test_free(d_w8t[m]);
  }
  for (int i = 0; i < 37; i++) {
    size_t at = offsets[2] + (size_t)i;
    ck_assert_msg(grads[at] == g[at], "bias %d: gradient %g, want %g", i,
                  grads[at], g[at]);
    ck_assert(memcmp(&got_p[at], &exp_p[at], 4) == 0);
    ck_assert(copy[at] == test_round(LT_DTYPE_BF16, got_p[at]));
  }
  free(grads);
  test_free(d_partials);
  test_free(d_g8);
  test_free(d_counters);
  free(copy);
  free(got_p);
  free(exp_p);
  free(got_v);
  free(exp_v);
  free(p);
  free(v);
  free(g);
  test_free(d_lr);
  test_free(d_g);
  test_free(want_p);
  test_free(want_v);
  test_free(want_copy);
  test_free(d_p);
  test_free(d_v);
  test_free(d_copy);
  test_free(d_meta);
}
END_TEST

int main(void) {
  test_require_fp8("sgd_fp8");
  seed = test_seed("sgd_fp8");
  Suite *suite = suite_create("sgd_fp8");
  TCase *tc = tcase_create("sgd");
  tcase_add_test(tc, sgd_fp8_matches_sgd_and_casts);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 1);
}
