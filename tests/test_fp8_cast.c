/* test_fp8_cast.c: the FP8 step's cast kernel (layers/fp8_cast.h) against
 * layers/fp8.c, bit for bit: the scale from the amax (current) or the
 * history (delayed), both layouts, the ReLU mask and GELU' applied on the
 * way, the amax recorded, the counts of what the cast lost (saturated by a
 * stale delayed scale, flushed by a large one), and the bias gradient's
 * partial sums (FP32 sums: within their rounding); then the roll of the
 * history. (The FP8 SGD: test_sgd_fp8.c.) GPU only: skips (77) without one. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "layers/fp8_cast.h"
#include "lt/lt_gelu.h"
#include "tests/test_gpu.h"
#include "tests/test_types.h"
#include "tests/test_util.h"

static uint64_t seed;

typedef struct cast_case {
  int rows, cols;
  fp8_mask mask;
  lt_dtype type;
  fp8_format format;
  int current;
  double history; /* delayed: the history's amax, times the data's */
  int aligned;    /* 1: ld a multiple of 8 (the kernel's vector path),
                     0: rows + 3 (element by element) */
  int specials;   /* 1: a few NaN and inf in the source */
} cast_case;

static const cast_case cases[] = {
    {100, 96, FP8_MASK_NONE, LT_DTYPE_BF16, FP8_FORMAT_E4M3, 1, 0, 0, 0},
    {784, 37, FP8_MASK_NONE, LT_DTYPE_BF16, FP8_FORMAT_E4M3, 1, 0, 0, 0},
    {129, 200, FP8_MASK_RELU, LT_DTYPE_BF16, FP8_FORMAT_E5M2, 1, 0, 0, 0},
    {100, 64, FP8_MASK_GELU, LT_DTYPE_BF16, FP8_FORMAT_E5M2, 1, 0, 0, 0},
    {130, 70, FP8_MASK_NONE, LT_DTYPE_F32, FP8_FORMAT_E4M3, 1, 0, 0, 0},
    {1, 1, FP8_MASK_NONE, LT_DTYPE_F32, FP8_FORMAT_E5M2, 1, 0, 0, 0},
    /* delayed, the history 4x below the data: values saturate */
    {100, 96, FP8_MASK_NONE, LT_DTYPE_BF16, FP8_FORMAT_E4M3, 0, 0.25, 0, 0},
    {100, 96, FP8_MASK_RELU, LT_DTYPE_BF16, FP8_FORMAT_E5M2, 0, 0.25, 0, 0},
    /* delayed, the history 2^20 above: small values flush to zero */
    {100, 96, FP8_MASK_NONE, LT_DTYPE_BF16, FP8_FORMAT_E4M3, 0, 1048576.0, 0,
     0},
    /* the same on the vector paths (ld a multiple of 8; rows a multiple
     * of 4 too: fp8_cast's fast kernel) */
    {100, 96, FP8_MASK_NONE, LT_DTYPE_BF16, FP8_FORMAT_E4M3, 1, 0, 1, 0},
    {784, 200, FP8_MASK_RELU, LT_DTYPE_BF16, FP8_FORMAT_E5M2, 1, 0, 1, 0},
    {112, 64, FP8_MASK_GELU, LT_DTYPE_BF16, FP8_FORMAT_E5M2, 1, 0, 1, 0},
    {130, 70, FP8_MASK_NONE, LT_DTYPE_F32, FP8_FORMAT_E4M3, 1, 0, 1, 0},
    {128, 70, FP8_MASK_NONE, LT_DTYPE_F32, FP8_FORMAT_E4M3, 1, 0, 1, 0},
    {128, 37, FP8_MASK_RELU, LT_DTYPE_BF16, FP8_FORMAT_E4M3, 1, 0, 1, 0},
    {100, 96, FP8_MASK_NONE, LT_DTYPE_BF16, FP8_FORMAT_E4M3, 0, 0.25, 1, 0},
    {100, 96, FP8_MASK_RELU, LT_DTYPE_BF16, FP8_FORMAT_E5M2, 0, 0.25, 1, 0},
    {100, 96, FP8_MASK_NONE, LT_DTYPE_BF16, FP8_FORMAT_E4M3, 0, 1048576.0, 1,
     0},
    /* NaN and inf, counted (inf is the amax, NaN never; the delayed scale
     * comes from the finite values) */
    {128, 64, FP8_MASK_NONE, LT_DTYPE_BF16, FP8_FORMAT_E4M3, 0, 1.0, 1, 1},
    {100, 96, FP8_MASK_NONE, LT_DTYPE_F32, FP8_FORMAT_E5M2, 0, 1.0, 0, 1},
};
enum { CASES = sizeof cases / sizeof cases[0] };

START_TEST(casts_match_the_reference) {
  const cast_case *c = &cases[_i];
  int rows = c->rows, cols = c->cols;
  int ld = c->aligned ? (rows + 7) / 8 * 8 : rows + 3;
  int ld_out = (rows + 15) / 16 * 16, ld_t = (cols + 15) / 16 * 16;
  int aux_ld = c->mask == FP8_MASK_RELU ? lt_aux_ld(rows) : ld;
  test_rng rng;
  test_rng_init(&rng, seed + (uint64_t)_i);
  size_t count = (size_t)ld * cols;
  float *x = malloc(count * sizeof(float)), *z = malloc(count * sizeof(float));
  for (size_t i = 0; i < count; i++) {
    /* magnitudes over 2^-12 .. 2^4, some exact zeros */
    double v = test_rng_uniform(&rng, -1, 1) * ldexp(1.0, (int)(i % 17) - 12);
    x[i] = i % 23 == 0 ? 0.0f : (float)v;
    z[i] = (float)test_rng_uniform(&rng, -3, 3);
  }
  if (c->specials)
    for (size_t i = 5; i < count; i += 997)
      x[i] = i % 2 ? NAN : -INFINITY;
  test_round_all(c->type, x, count);
  test_round_all(LT_DTYPE_BF16, z, count);
  float meta_history_amax = 0.0f;
  size_t mask_bytes = (size_t)aux_ld / 8 * cols;
  uint8_t *bits = malloc(mask_bytes);
  for (size_t i = 0; i < mask_bytes; i++)
    bits[i] = (uint8_t)test_rng_next(&rng);
  /* The masked source, as the kernel forms it (GELU: the device's GELU'
   * may differ from the host's in the last bit of a float, so the GELU
   * case takes the kernel's own masked values, checked against the host's
   * within two BF16 roundings, below). */
  float *masked = malloc(count * sizeof(float));
  for (int j = 0; j < cols; j++)
    for (int i = 0; i < rows; i++) {
      size_t at = (size_t)j * ld + i;
      float v = x[at];
      if (c->mask == FP8_MASK_RELU)
        v = (bits[(size_t)j * (aux_ld / 8) + i / 8] >> (i % 8)) & 1 ? v : 0.0f;
      else if (c->mask == FP8_MASK_GELU)
        v = test_round(LT_DTYPE_BF16, v * lt_gelu_grad(z[at]));
      masked[at] = v;
    }
  float amax = 0.0f; /* fmaxf: a NaN never wins, inf does */
  for (int j = 0; j < cols; j++)
    for (int i = 0; i < rows; i++)
      amax = fmaxf(amax, fabsf(masked[(size_t)j * ld + i]));
  if (c->specials) {
    /* The delayed history's amax: the finite values' (an inf amax would
     * keep the old scale: fp8_scale_from_amax refuses it). */
    float finite = 0.0f;
    for (int j = 0; j < cols; j++)
      for (int i = 0; i < rows; i++) {
        float v = masked[(size_t)j * ld + i];
        if (isfinite(v)) finite = fmaxf(finite, fabsf(v));
      }
    meta_history_amax = finite;
  }
  fp8_meta meta = {.scale = 1.0f, .scale_inv = 1.0f};
  if (!c->current)
    meta.history[3] =
        (float)((c->specials ? meta_history_amax : amax) * c->history);
  float scale = 1.0f;
  ck_assert_int_eq(fp8_scale_from_amax(&scale,
                                       c->current ? amax : meta.history[3],
                                       c->format, NULL, 0),
                   0);

  void *d_x = test_upload_as(c->type, x, count);
  void *d_aux = c->mask == FP8_MASK_RELU ? test_upload(bits, mask_bytes)
                : c->mask == FP8_MASK_GELU
                    ? test_upload_as(LT_DTYPE_BF16, z, count)
                    : NULL;
  void *d_masked = c->mask ? test_upload(NULL, count * 2) : NULL;
  uint8_t *d_q = test_upload(NULL, (size_t)ld_out * cols);
  uint8_t *d_qt = test_upload(NULL, (size_t)ld_t * rows);
  int tiles = fp8_cast_tiles(cols);
  float *d_partials = test_upload(NULL, (size_t)tiles * rows * sizeof(float));
  fp8_meta *d_meta = test_upload(&meta, sizeof meta);
  fp8_cast_args a = {.src_type = c->type,
                     .d_src = d_x,
                     .ld_src = ld,
                     .rows = rows,
                     .cols = cols,
                     .mask = c->mask,
                     .d_aux = d_aux,
                     .aux_ld = aux_ld,
                     .d_masked = d_masked,
                     .d_out = d_q,
                     .ld_out = ld_out,
                     .d_out_t = d_qt,
                     .ld_out_t = ld_t,
                     .d_partials = d_partials,
                     .d_meta = d_meta,
                     .format = c->format,
                     .current = c->current};
  ck_assert_int_eq(fp8_cast(&a, NULL, 0), 0);
  uint8_t *q = malloc((size_t)ld_out * cols), *qt = malloc((size_t)ld_t * rows);
  float *partials = malloc((size_t)tiles * rows * sizeof(float));
  test_download(q, d_q, (size_t)ld_out * cols);
  test_download(qt, d_qt, (size_t)ld_t * rows);
  test_download(partials, d_partials, (size_t)tiles * rows * sizeof(float));
  test_download(&meta, d_meta, sizeof meta);
  if (d_masked) {
    double *got = test_download_as(LT_DTYPE_BF16, d_masked, count);
    for (int j = 0; j < cols; j++)
      for (int i = 0; i < rows; i++) {
        size_t at = (size_t)j * ld + i;
        double tol = c->mask == FP8_MASK_GELU ? ldexp(fabs(masked[at]), -7) : 0;
        ck_assert_msg(fabs(got[at] - masked[at]) <= tol,
                      "case %d: masked (%d,%d) = %g, want %g", _i, i, j,
                      got[at], masked[at]);
        masked[at] = (float)got[at];
      }
    free(got);
    amax = 0.0f;
    for (int j = 0; j < cols; j++)
      for (int i = 0; i < rows; i++)
        amax = fmaxf(amax, fabsf(masked[(size_t)j * ld + i]));
    if (c->current)
      ck_assert_int_eq(fp8_scale_from_amax(&scale, amax, c->format, NULL, 0),
                       0);
  }
  ck_assert_msg(meta.scale == scale, "case %d: scale %g, want %g", _i,
                meta.scale, scale);
  ck_assert(meta.scale_inv == 1.0f / scale);
  uint32_t amax_bits;
  memcpy(&amax_bits, &amax, sizeof amax_bits);
  ck_assert_uint_eq(meta.amax_bits, amax_bits);
  fp8_counts want = {0, 0, 0}, one;
  for (int j = 0; j < cols; j++) {
    double sum = 0;
    for (int i = 0; i < rows; i++) {
      size_t at = (size_t)j * ld + i;
      uint8_t code;
      fp8_encode_array(&code, &one, &masked[at], 1, scale, c->format);
      want.saturated += one.saturated;
      want.flushed += one.flushed;
      want.nan += one.nan;
      ck_assert_msg(q[(size_t)j * ld_out + i] == code,
                    "case %d: q(%d,%d) = 0x%02x, want 0x%02x (x %g, scale %g)",
                    _i, i, j, q[(size_t)j * ld_out + i], code, masked[at],
                    scale);
      ck_assert_msg(qt[(size_t)i * ld_t + j] == code,
                    "case %d: transposed (%d,%d) = 0x%02x, want 0x%02x", _i, j,
                    i, qt[(size_t)i * ld_t + j], code);
      sum += fabs(masked[at]);
    }
    (void)sum;
  }
  ck_assert_uint_eq(meta.saturated, want.saturated);
  ck_assert_uint_eq(meta.flushed, want.flushed);
  ck_assert_uint_eq(meta.nan, want.nan);
  ck_assert_uint_eq(meta.casts, 1);
  if (c->history == 0.25) ck_assert_uint_gt(meta.saturated, 0);
  if (c->history > 1.0) ck_assert_uint_gt(meta.flushed, 0);
  /* Partial row sums per tile of 64 columns: FP32 sums of up to 64
   * values, 2 (64 + 2) 2^-24 of their magnitudes. */
  for (int t = 0; t < tiles; t++)
    for (int i = 0; i < rows; i++) {
      double ref = 0, mag = 0;
      for (int j = t * FP8_CAST_TILE; j < cols && j < (t + 1) * FP8_CAST_TILE;
           j++) {
        ref += masked[(size_t)j * ld + i];
        mag += fabs(masked[(size_t)j * ld + i]);
      }
      double got = partials[(size_t)t * rows + i];
      if (!isfinite(ref)) { /* a NaN or inf summed: the same comes out */
        ck_assert_msg(isnan(got) == isnan(ref) && (isnan(ref) || got == ref),
                      "case %d: partial (%d, tile %d) = %g, want %g", _i, i, t,
                      got, ref);
        continue;
      }
      ck_assert_msg(fabs(got - ref) <= 2.0 * 66 * ldexp(1.0, -24) * mag,
                    "case %d: partial (%d, tile %d) = %.9g, want %.9g", _i, i,
                    t, got, ref);
    }
  /* The roll: this step's amax into the history, amax zeroed. */
  uint32_t *d_step = test_upload(NULL, sizeof(uint32_t));
  test_fill_device(d_step, 0, sizeof(uint32_t));
  ck_assert_int_eq(fp8_scales_roll(d_meta, 1, d_step, 0), 0);
  test_download(&meta, d_meta, sizeof meta);
  uint32_t step = 0;
  test_download(&step, d_step, sizeof step);
  ck_assert_uint_eq(step, 1);
  ck_assert(meta.history[0] == amax);
  ck_assert_uint_eq(meta.amax_bits, 0);
  test_free(d_step);
  free(q);
  free(qt);
  free(partials);
  free(masked);
  free(bits);
  free(x);
  free(z);
  test_free(d_x);
  test_free(d_aux);
  test_free(d_masked);
  test_free(d_q);
  test_free(d_qt);
  test_free(d_partials);
  test_free(d_meta);
}
END_TEST

/* fp8_bias_grad: the tiles' partials summed in tile order, rounded to
 * BF16 once. */
START_TEST(bias_grad_sums_the_tiles) {
  enum { ROWS = 77, TILES = 5 };
  float partials[TILES * ROWS];
  test_rng rng;
  test_rng_init(&rng, seed);
  for (int i = 0; i < TILES * ROWS; i++)
    partials[i] = (float)test_rng_uniform(&rng, -2, 2);
  float *d_partials = test_upload(partials, sizeof partials);
  void *d_db = test_upload(NULL, ROWS * 2);
  ck_assert_int_eq(fp8_bias_grad(d_db, d_partials, ROWS, TILES, 0), 0);
  double *db = test_download_as(LT_DTYPE_BF16, d_db, ROWS);
  for (int r = 0; r < ROWS; r++) {
    float s = 0.0f;
    for (int t = 0; t < TILES; t++)
      s += partials[t * ROWS + r];
    ck_assert_msg(db[r] == test_round(LT_DTYPE_BF16, s), "db[%d] = %g, want %g",
                  r, db[r], test_round(LT_DTYPE_BF16, s));
  }
  free(db);
  test_free(d_partials);
  test_free(d_db);
}
END_TEST

int main(void) {
  test_require_fp8("fp8_cast");
  seed = test_seed("fp8_cast");
  Suite *suite = suite_create("fp8_cast");
  TCase *tc = tcase_create("cast");
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, casts_match_the_reference, 0, CASES);
  tcase_add_test(tc, bias_grad_sums_the_tiles);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 1);
}
