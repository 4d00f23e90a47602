/* test_sgd_fp8.c: SGD writing the FP8 weights (layers/sgd_fp8.h) on the
 * GPU, against sgd_update and layers/fp8.c bit for bit. GPU only: skips
 * (77) without one, or on a GPU without FP8 (below 8.9). */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "layers/fp8_cast.h"
#include "layers/sgd_fp8.h"
#include "tests/test_gpu.h"
#include "tests/test_types.h"
#include "tests/test_util.h"

static uint64_t seed;

/* sgd_fp8_update: the FP32 master weights and momentum bit for bit those
 * of sgd_update on the same slabs; each matrix's FP8 copies (both
 * layouts) fp8_encode of the new weights with the scale of its history;
 * the new amax recorded; the vectors' (and, asked, the matrices') BF16
 * copy. Two matrices: 98 x 70 (ld 104: a partial row quad, written byte by
 * byte, and a partial column
 * tile) and 64 x 16, and a vector of 37. */
START_TEST(sgd_fp8_matches_sgd_and_casts) {
  enum { SLAB = 104 * 70 + 64 * 16 + 64 };
  const size_t offsets[3] = {0, 104 * 70, 104 * 70 + 64 * 16};
  const int rows[2] = {98, 64}, cols[2] = {70, 16}, lds[2] = {104, 64};
  test_rng rng;
  test_rng_init(&rng, seed);
  float *p = calloc(SLAB, sizeof(float)), *v = calloc(SLAB, sizeof(float));
  float *g = calloc(SLAB, sizeof(float));
  for (int i = 0; i < SLAB; i++) {
    p[i] = (float)test_rng_uniform(&rng, -0.3, 0.3);
    v[i] = (float)test_rng_uniform(&rng, -0.1, 0.1);
    g[i] = test_round(LT_DTYPE_BF16, (float)test_rng_uniform(&rng, -1, 1));
  }
  /* Matrix 0's padding rows 98 .. 103 are zero, as a network's are. */
  for (int c = 0; c < 70; c++)
    for (int r = 98; r < 104; r++)
      p[c * 104 + r] = v[c * 104 + r] = g[c * 104 + r] = 0.0f;
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
  void *d_copy = test_upload(NULL, SLAB * 2);
  fp8_meta meta[2] = {{.scale = 1.0f, .scale_inv = 1.0f},
                      {.scale = 1.0f, .scale_inv = 1.0f}};
  meta[0].history[2] = 0.5f;  /* scale 512 */
  meta[1].history[9] = 0.01f; /* scale 32768: the new weights saturate */
  fp8_meta *d_meta = test_upload(meta, sizeof meta);
  uint8_t *d_w8[2], *d_w8t[2];
  sgd_fp8_args a = {.slabs = {.d_params = d_p,
                              .d_velocity = d_v,
                              .d_grads = d_g,
                              .d_copy = d_copy,
                              .type = LT_DTYPE_BF16,
                              .count = SLAB},
                    .copy_weights = 1,
                    .matrices = 2,
                    .vectors = 1};
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
  a.v[0] = (sgd_fp8_vector){.offset = offsets[2], .length = 37};
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
  test_download(meta, d_meta, sizeof meta);
  for (int m = 0; m < 2; m++) {
    int ld8 = (rows[m] + 15) / 16 * 16, ld8t = (cols[m] + 15) / 16 * 16;
    uint8_t *q = malloc((size_t)ld8 * cols[m]);
    uint8_t *qt = malloc((size_t)ld8t * rows[m]);
    test_download(q, d_w8[m], (size_t)ld8 * cols[m]);
    test_download(qt, d_w8t[m], (size_t)ld8t * rows[m]);
    float scale = 1.0f, amax = 0.0f;
    ck_assert_int_eq(
        fp8_scale_from_amax(&scale, m ? 0.01f : 0.5f, FP8_FORMAT_E4M3, NULL, 0),
        0);
    ck_assert(meta[m].scale == scale && meta[m].scale_inv == 1.0f / scale);
    fp8_counts lost = {0, 0, 0};
    for (int c = 0; c < cols[m]; c++)
      for (int r = 0; r < lds[m]; r++) {
        size_t at = offsets[m] + (size_t)c * lds[m] + r;
        ck_assert_msg(memcmp(&got_p[at], &exp_p[at], 4) == 0 &&
                          memcmp(&got_v[at], &exp_v[at], 4) == 0,
                      "matrix %d (%d,%d): p %.9g v %.9g, sgd_update %.9g %.9g",
                      m, r, c, got_p[at], got_v[at], exp_p[at], exp_v[at]);
        ck_assert(copy[at] == test_round(LT_DTYPE_BF16, got_p[at]));
        if (r >= rows[m]) continue;
        fp8_counts one;
        uint8_t code;
        fp8_encode_array(&code, &one, &got_p[at], 1, scale, FP8_FORMAT_E4M3);
        lost.saturated += one.saturated;
        lost.flushed += one.flushed;
        amax = fmaxf(amax, fabsf(got_p[at]));
        ck_assert_msg(
            q[(size_t)c * ld8 + r] == code && qt[(size_t)r * ld8t + c] == code,
            "matrix %d (%d,%d): 0x%02x / 0x%02x, want 0x%02x", m, r, c,
            q[(size_t)c * ld8 + r], qt[(size_t)r * ld8t + c], code);
      }
    uint32_t bits;
    memcpy(&bits, &amax, 4);
    ck_assert_uint_eq(meta[m].amax_bits, bits);
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
    ck_assert(memcmp(&got_p[at], &exp_p[at], 4) == 0);
    ck_assert(copy[at] == test_round(LT_DTYPE_BF16, got_p[at]));
  }
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
