/* test_fp8_cast.c: the FP8 step's kernels (layers/fp8_cast.h) against
 * layers/fp8.c, bit for bit: the cast with its scale from its own amax
 * (current) or read (delayed), both layouts and the transposed copy's
 * padding rows, the ReLU mask and GELU' applied on the way, the amax
 * recorded, the counts of what it lost (saturated by a stale scale,
 * flushed by a large one, NaN and inf), an all-zero tensor, the bias
 * gradient's partial sums (FP32: within their rounding), and the sizes it
 * refuses; the transpose of FP8 codes; the roll of the histories, with
 * its empty and infinite histories. (The FP8 SGD: test_sgd_fp8.c.) GPU
 * only: skips (77) without one, or on a GPU without FP8. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "layers/fp8_cast.h"
#include "lt/lt_gelu.h"
#include "tests/test_fp8_ref.h"
#include "tests/test_fp8_util.h"
#include "tests/test_gpu.h"
#include "tests/test_types.h"
#include "tests/test_util.h"

static uint64_t seed;

typedef struct cast_case {
  int rows, cols;
  fp8_mask mask;
  lt_dtype type;
  lt_fp8 format;
  int current;
  double history; /* delayed: the scale's amax, times the data's */
  int specials;   /* 1: a few NaN and inf in the source; 2: all zero;
                     3: no exact zeros; 4: rows 0-31 -0 (whole threads) */
  int blocks;     /* fp8_cast_args.blocks: 0 as many as the GPU holds */
  int peak;       /* 1: element (0, 0), in block 0's first tile, 64: the
                     amax, 4x the rest (the max over a block's tiles) */
  int bare;       /* 1: no transposed copy, no partials (the weights');
                     2: no codes in the source's layout (a first layer's
                     data gradient: its own kernel, fp8_cast.cu) */
} cast_case;

static const cast_case cases[] = {
    {112, 96, FP8_MASK_NONE, LT_DTYPE_BF16, LT_FP8_E4M3, 1, 0, 0, 0, 0, 0},
    {784, 37, FP8_MASK_NONE, LT_DTYPE_BF16, LT_FP8_E4M3, 1, 0, 0, 0, 0, 0},
    {144, 200, FP8_MASK_RELU, LT_DTYPE_BF16, LT_FP8_E5M2, 1, 0, 0, 0, 0, 0},
    {112, 64, FP8_MASK_GELU, LT_DTYPE_BF16, LT_FP8_E5M2, 1, 0, 0, 0, 0, 0},
    {144, 70, FP8_MASK_NONE, LT_DTYPE_F32, LT_FP8_E4M3, 1, 0, 0, 0, 0, 0},
    {16, 1, FP8_MASK_NONE, LT_DTYPE_F32, LT_FP8_E5M2, 1, 0, 0, 0, 0, 0},
    {128, 129, FP8_MASK_RELU, LT_DTYPE_BF16, LT_FP8_E4M3, 1, 0, 0, 0, 0, 0},
    /* delayed, the scale's amax 4x below the data: values saturate */
    {112, 96, FP8_MASK_NONE, LT_DTYPE_BF16, LT_FP8_E4M3, 0, 0.25, 0, 0, 0, 0},
    {112, 96, FP8_MASK_RELU, LT_DTYPE_BF16, LT_FP8_E5M2, 0, 0.25, 0, 0, 0, 0},
    /* delayed, 2^20 above: small values flush to zero */
    {112, 96, FP8_MASK_NONE, LT_DTYPE_BF16, LT_FP8_E4M3, 0, 1048576.0, 0, 0, 0,
     0},
    {112, 300, FP8_MASK_GELU, LT_DTYPE_BF16, LT_FP8_E4M3, 0, 1.0, 0, 0, 0, 0},
    /* NaN and inf, counted (inf is the amax, NaN never) */
    {128, 64, FP8_MASK_NONE, LT_DTYPE_BF16, LT_FP8_E4M3, 0, 1.0, 1, 0, 0, 0},
    {112, 96, FP8_MASK_NONE, LT_DTYPE_F32, LT_FP8_E5M2, 0, 1.0, 1, 0, 0, 0},
    {112, 96, FP8_MASK_NONE, LT_DTYPE_BF16, LT_FP8_E4M3, 1, 0, 1, 0, 0, 0},
    /* no exact zeros, the ReLU mask's aside: a thread whose non-zero
     * values all scale above the flush bound skips the count (they cannot
     * flush), the others count (some do): the sum is the reference's */
    {144, 200, FP8_MASK_RELU, LT_DTYPE_BF16, LT_FP8_E4M3, 1, 0, 3, 0, 0, 0},
    /* all zero, current: amax 0 keeps the previous scale (issue 28,
     * defect 7: the GPU's amax-0 branch) */
    {112, 40, FP8_MASK_RELU, LT_DTYPE_BF16, LT_FP8_E5M2, 1, 0, 2, 0, 0, 0},
    /* several tiles a block, in blocks that cast different numbers of
     * them (10 tiles in 3 blocks: 4, 3 and 3; 15 in 4; 5 in 2, the amax
     * in block 0's first tile; 3 in 2; 4 in 2): the amax and counts over
     * a block's tiles, each tile's codes and partials; and without the
     * transposed copy and the partials (10 in 3) */
    {144, 200, FP8_MASK_RELU, LT_DTYPE_BF16, LT_FP8_E5M2, 1, 0, 0, 3, 0, 0},
    {144, 300, FP8_MASK_GELU, LT_DTYPE_BF16, LT_FP8_E4M3, 0, 1.0, 0, 4, 0, 0},
    {144, 70, FP8_MASK_NONE, LT_DTYPE_F32, LT_FP8_E4M3, 1, 0, 0, 2, 1, 0},
    {96, 96, FP8_MASK_RELU, LT_DTYPE_BF16, LT_FP8_E5M2, 0, 0.25, 0, 2, 0, 0},
    {112, 96, FP8_MASK_NONE, LT_DTYPE_BF16, LT_FP8_E4M3, 0, 1.0, 1, 2, 0, 0},
    {144, 200, FP8_MASK_NONE, LT_DTYPE_BF16, LT_FP8_E4M3, 0, 0.25, 0, 3, 0, 1},
    /* more blocks than a column of tiles (20 tiles, 2 a column, in 3
     * blocks): a block's next tile one row of tiles and one column on,
     * with the carry (step_x 1, step_y 1) */
    {64, 1280, FP8_MASK_RELU, LT_DTYPE_BF16, LT_FP8_E5M2, 1, 0, 0, 3, 0, 0},
    /* a step's size (4096 x 1024: 1024 tiles, more than an H200 holds at
     * once: 4 x 132), the blocks as the GPU holds them */
    {4096, 1024, FP8_MASK_RELU, LT_DTYPE_BF16, LT_FP8_E5M2, 0, 1.0, 0, 0, 0, 0},
    /* no codes in the source's layout, each format: the transposed copy,
     * partials, amax and counts of the kernel without them (flushes, a
     * GELU product's zeros, saturation) */
    {144, 200, FP8_MASK_RELU, LT_DTYPE_BF16, LT_FP8_E5M2, 0, 1048576.0, 3, 3, 0,
     2},
    {112, 300, FP8_MASK_GELU, LT_DTYPE_BF16, LT_FP8_E4M3, 0, 1.0, 0, 0, 0, 2},
    {112, 96, FP8_MASK_RELU, LT_DTYPE_BF16, LT_FP8_E4M3, 0, 0.25, 0, 2, 0, 2},
    /* threads whose values are all -0 (GELU: products +-0): a -0 amax's
     * bits would beat every positive one in the block's atomicMax. The
     * block max from +0 absorbs a -0 on the H200 (a decode returning -0
     * passed here); the cases guard other GPUs and compilers */
    {112, 96, FP8_MASK_NONE, LT_DTYPE_BF16, LT_FP8_E4M3, 1, 0, 4, 0, 0, 0},
    {112, 300, FP8_MASK_GELU, LT_DTYPE_BF16, LT_FP8_E5M2, 1, 0, 4, 0, 0, 2},
};
enum { CASES = sizeof cases / sizeof cases[0] };

/* The source (rounded to its type), the mask bits and the GELU input. */
static void make_source(float *x, float *z, uint8_t *bits, int ld, size_t count,
                        size_t mask_bytes, const cast_case *c, test_rng *rng) {
  for (size_t i = 0; i < count; i++) {
    /* magnitudes over 2^-12 .. 2^4, some exact zeros (one in two -0) and
     * a few subnormals (the zero counts: -0 is a zero, 2^-130 is not) */
    double v = test_rng_uniform(rng, -1, 1) * ldexp(1.0, (int)(i % 17) - 12);
    if (i % 31 == 7) v = ldexp(i % 2 ? 1.0 : -1.0, -130);
    int zero = (i % 23 == 0 && c->specials != 3) || c->specials == 2;
    x[i] = zero ? (i % 46 ? 0.0f : -0.0f) : (float)v;
    z[i] = (float)test_rng_uniform(rng, -3, 3);
    if (i % 101 == 3) /* GELU's tails: +-2^0 .. 2^24 (GELU' 1 or 0) */
      z[i] = ldexpf(i % 2 ? 1.0f : -1.0f, (int)(i % 25));
  }
  if (c->specials == 1)
    for (size_t i = 5; i < count; i += 997)
      x[i] = i % 2 ? NAN : -INFINITY;
  for (size_t i = 0; c->specials == 4 && i < count; i++)
    if (i % (size_t)ld < 32) x[i] = -0.0f;
  if (c->peak) x[0] = 64.0f; /* the rest stay under 16 */
  test_round_all(c->type, x, count);
  test_round_all(LT_DTYPE_BF16, z, count);
  for (size_t i = 0; i < mask_bytes; i++)
    bits[i] = (uint8_t)test_rng_next(rng);
}

/* The amax and counts of a cast of the (masked) source `v`, exact. */
static void check_record(const double *v, int ld, int rows, int cols,
                         float scale, lt_fp8 format, const fp8_meta *meta,
                         float amax, const char *what) {
  ck_assert_msg(meta->amax == amax && !signbit(meta->amax),
                "%s: amax %g, want %g", what, meta->amax, amax);
  test_fp8_counts want = {0, 0, 0}, one;
  for (int j = 0; j < cols; j++)
    for (int i = 0; i < rows; i++) {
      float x = (float)v[(size_t)j * ld + i];
      uint8_t code;
      test_fp8_encode_array(&code, &one, &x, 1, scale, format);
      want.saturated += one.saturated;
      want.flushed += one.flushed;
      want.nan += one.nan;
    }
  ck_assert_uint_eq(meta->saturated, want.saturated);
  ck_assert_uint_eq(meta->flushed, want.flushed);
  ck_assert_uint_eq(meta->nan, want.nan);
}

/* GELU's: the kernel's GELU' (fp8_gelu_grad) is within 4e-7 of the exact,
 * lt_gelu_grad's within 6e-7, so a product x GELU'(z), in FP32 then BF16,
 * lies between those of GELU' -+ GELU_SLACK (both roundings are monotone).
 * The amax lies between the least and largest |product| those allow, each
 * count between the elements surely and possibly counted; fewer than one
 * in 64 may go either way, so the bounds still bind. */
#define GELU_SLACK 2e-6
static void check_gelu_record(const float *x, const float *z, int ld, int rows,
                              int cols, float scale, lt_fp8 format,
                              const fp8_meta *meta, const char *what) {
  float amax_lo = 0.0f, amax_hi = 0.0f;
  size_t sure[3] = {0, 0, 0}, maybe[3] = {0, 0, 0};
  for (int j = 0; j < cols; j++)
    for (int i = 0; i < rows; i++) {
      size_t at = (size_t)j * ld + i;
      double g = lt_gelu_grad(z[at]);
      float end[2];
      test_fp8_counts lost[2];
      for (int k = 0; k < 2; k++) {
        float p = (float)((double)x[at] * (g + (k ? GELU_SLACK : -GELU_SLACK)));
        end[k] = test_round(LT_DTYPE_BF16, p);
        uint8_t code;
        test_fp8_encode_array(&code, &lost[k], &end[k], 1, scale, format);
      }
      float lo = fminf(end[0], end[1]), hi = fmaxf(end[0], end[1]);
      /* across 0: the flush count is 0 there, 1 either side of it */
      int across = lo <= 0.0f && hi >= 0.0f && (lo != 0.0f || hi != 0.0f);
      size_t a[3] = {lost[0].saturated, lost[0].flushed, lost[0].nan};
      size_t b[3] = {lost[1].saturated, lost[1].flushed, lost[1].nan};
      for (int n = 0; n < 3; n++) {
        int split = a[n] != b[n] || (n == 1 && across);
        sure[n] += a[n] && b[n] && !split;
        maybe[n] += a[n] || b[n] || split;
      }
      amax_lo = fmaxf(amax_lo, lo > 0.0f ? lo : hi < 0.0f ? -hi : 0.0f);
      amax_hi = fmaxf(amax_hi, fmaxf(fabsf(lo), fabsf(hi)));
    }
  ck_assert_msg(
      meta->amax >= amax_lo && meta->amax <= amax_hi && !signbit(meta->amax),
      "%s: GELU amax %g, want %g .. %g", what, meta->amax, amax_lo, amax_hi);
  const uint32_t got[3] = {meta->saturated, meta->flushed, meta->nan};
  const char *name[3] = {"saturated", "flushed", "nan"};
  for (int n = 0; n < 3; n++) {
    ck_assert_msg(got[n] >= sure[n] && got[n] <= maybe[n],
                  "%s: GELU %s %u, want %zu .. %zu", what, name[n], got[n],
                  sure[n], maybe[n]);
    ck_assert_msg(maybe[n] - sure[n] <= (size_t)rows * cols / 64,
                  "%s: GELU %s: %zu of %d elements undecided", what, name[n],
                  maybe[n] - sure[n], rows * cols);
  }
}

START_TEST(casts_match_the_reference) {
  const cast_case *c = &cases[_i];
  int rows = c->rows, cols = c->cols;
  int ld = c->type == LT_DTYPE_F32 ? rows : lt_ld(rows);
  int ld_out = lt_ld_fp8(rows), ld_t = lt_ld_fp8(cols);
  int aux_ld = c->mask == FP8_MASK_RELU ? lt_aux_ld(rows) : ld;
  test_rng rng;
  test_rng_init(&rng, seed + (uint64_t)_i);
  size_t count = (size_t)ld * cols, mask_bytes = (size_t)aux_ld / 8 * cols;
  float *x = malloc(count * sizeof(float)), *z = malloc(count * sizeof(float));
  uint8_t *bits = malloc(mask_bytes);
  make_source(x, z, bits, ld, count, mask_bytes, c, &rng);
  /* The masked source, as the kernel forms it. */
  double *masked = malloc(count * sizeof(double));
  float amax = 0.0f, finite = 0.0f; /* fmaxf: a NaN never wins, inf does */
  for (int j = 0; j < cols; j++)
    for (int i = 0; i < rows; i++) {
      size_t at = (size_t)j * ld + i;
      float v = x[at];
      if (c->mask == FP8_MASK_RELU)
        v = (bits[(size_t)j * (aux_ld / 8) + i / 8] >> (i % 8)) & 1 ? v : 0.0f;
      else if (c->mask == FP8_MASK_GELU)
        v = test_round(LT_DTYPE_BF16, v * lt_gelu_grad(z[at]));
      masked[at] = v;
      amax = fmaxf(amax, fabsf(v));
      if (isfinite(v)) finite = fmaxf(finite, fabsf(v));
    }
  fp8_meta meta = {.scale = 8.0f, .scale_inv = 0.125f};
  float scale = 8.0f;
  int bad = fp8_scale_from_amax(&scale, c->current ? amax : finite * c->history,
                                c->format, NULL, 0) != 0;
  if (!c->current) meta.scale = scale; /* the roll's, read by the cast */
  void *d_x = test_upload_as(c->type, x, count);
  void *d_aux = c->mask == FP8_MASK_RELU ? test_upload(bits, mask_bytes)
                : c->mask == FP8_MASK_GELU
                    ? test_upload_as(LT_DTYPE_BF16, z, count)
                    : NULL;
  uint8_t *d_q = test_upload(NULL, (size_t)ld_out * cols);
  uint8_t *d_qt = test_upload(NULL, (size_t)ld_t * rows);
  test_fill_device(d_qt, 0xAB, (size_t)ld_t * rows); /* padding rows: 0 */
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
                     .d_out = c->bare == 2 ? NULL : d_q,
                     .ld_out = ld_out,
                     .d_out_t = c->bare == 1 ? NULL : d_qt,
                     .ld_out_t = ld_t,
                     .d_partials = c->bare == 1 ? NULL : d_partials,
                     .d_scale = c->current ? NULL : &d_meta->scale,
                     .d_meta = d_meta,
                     .format = c->format,
                     .blocks = c->blocks};
  ck_assert_int_eq(fp8_cast(&a, NULL, 0), 0);
  test_download(&meta, d_meta, sizeof meta);
  char what[64];
  snprintf(what, sizeof what, "case %d", _i);
  ck_assert_msg(meta.scale == scale && meta.scale_inv == 1.0f / scale,
                "%s: scale %g (inverse %g), want %g", what, meta.scale,
                meta.scale_inv, scale);
  test_fp8_check_cast(masked, ld, rows, cols, c->bare == 2 ? NULL : d_q, ld_out,
                      c->bare == 1 ? NULL : d_qt, ld_t, scale, c->format,
                      c->mask == FP8_MASK_GELU, what);
  if (c->peak)
    ck_assert_msg(amax == 64.0f, "%s: the peak is not the amax", what);
  if (c->mask == FP8_MASK_GELU)
    check_gelu_record(x, z, ld, rows, cols, scale, c->format, &meta, what);
  else
    check_record(masked, ld, rows, cols, scale, c->format, &meta, amax, what);
  ck_assert_uint_eq(meta.casts, 1);
  ck_assert_uint_eq(meta.bad_amax, (unsigned)(c->current && bad));
  if (c->history == 0.25) ck_assert_uint_gt(meta.saturated, 0);
  if (c->history > 1.0 || c->specials == 3) ck_assert_uint_gt(meta.flushed, 0);
  if (c->specials == 2) ck_assert(meta.scale == 8.0f); /* kept */
  /* Partial row sums per tile of FP8_CAST_TILE columns: FP32 sums of up
   * to 128 values, 2 (128 + 2) 2^-24 of their magnitudes. */
  float *partials = malloc((size_t)tiles * rows * sizeof(float));
  test_download(partials, d_partials, (size_t)tiles * rows * sizeof(float));
  for (int t = 0; t < tiles && c->bare != 1; t++)
    for (int i = 0; i < rows; i++) {
      double ref = 0, mag = 0, got = partials[(size_t)t * rows + i];
      for (int j = t * FP8_CAST_TILE; j < cols && j < (t + 1) * FP8_CAST_TILE;
           j++) {
        ref += masked[(size_t)j * ld + i];
        mag += fabs(masked[(size_t)j * ld + i]);
      }
      if (!isfinite(ref)) { /* a NaN or inf summed: the same comes out */
        ck_assert_msg(isnan(got) == isnan(ref) && (isnan(ref) || got == ref),
                      "%s: partial (%d, tile %d) = %g, want %g", what, i, t,
                      got, ref);
        continue;
      }
      double bound = 2.0 * 130 * ldexp(1.0, -24) * mag +
                     (c->mask == FP8_MASK_GELU ? ldexp(mag, -7) : 0.0);
      ck_assert_msg(fabs(got - ref) <= bound,
                    "%s: partial (%d, tile %d) = %.9g, want %.9g", what, i, t,
                    got, ref);
    }
  free(partials);
  free(masked);
  free(bits);
  free(x);
  free(z);
  test_free(d_x);
  test_free(d_aux);
  test_free(d_q);
  test_free(d_qt);
  test_free(d_partials);
  test_free(d_meta);
}
END_TEST

/* What the kernel cannot take is refused before anything runs, naming the
 * requirement: rows that are not a multiple of 16 (an unpadded width:
 * mlp_create refuses those too), an ld that is not 16 bytes' multiple. */
START_TEST(unaligned_casts_are_refused) {
  fp8_meta *d_meta = test_upload(NULL, sizeof(fp8_meta));
  void *d_x = test_upload(NULL, 1 << 16);
  fp8_cast_args a = {.src_type = LT_DTYPE_BF16,
                     .d_src = d_x,
                     .ld_src = 104,
                     .rows = 100,
                     .cols = 8,
                     .d_meta = d_meta,
                     .format = LT_FP8_E4M3};
  ck_assert_int_eq(fp8_cast(&a, NULL, 0), -1);
  a.rows = 96;
  a.ld_src = 100;
  ck_assert_int_eq(fp8_cast(&a, NULL, 0), -1);
  a.ld_src = 104;
  a.blocks = -1;
  ck_assert_int_eq(fp8_cast(&a, NULL, 0), -1);
  a.blocks = 0;
  ck_assert_int_eq(fp8_cast(&a, NULL, 0), 0);
  test_free(d_x); /* cudaFree waits for the device */
  test_free(d_meta);
}
END_TEST

/* fp8_transpose: every code moved, the padding rows zero, rows beyond
 * them untouched. */
START_TEST(transpose_moves_every_code) {
  enum { ROWS = 144, COLS = 37, LD = 160 };
  int ld_t = lt_ld_fp8(COLS) + 16; /* room past the padding */
  size_t in_bytes = (size_t)LD * COLS, out_bytes = (size_t)ld_t * ROWS;
  uint8_t *in = malloc(in_bytes);
  test_rng rng;
  test_rng_init(&rng, seed + 99);
  for (size_t i = 0; i < in_bytes; i++)
    in[i] = (uint8_t)test_rng_next(&rng);
  uint8_t *d_in = test_upload(in, in_bytes);
  uint8_t *d_out = test_upload(NULL, out_bytes);
  test_fill_device(d_out, 0xCD, out_bytes);
  ck_assert_int_eq(fp8_transpose(d_out, ld_t, d_in, LD, ROWS, COLS, NULL, 0),
                   0);
  uint8_t *out = test_fp8_codes(d_out, out_bytes);
  for (int i = 0; i < ROWS; i++)
    for (int j = 0; j < ld_t; j++) {
      uint8_t got = out[(size_t)i * ld_t + j];
      uint8_t want = j < COLS              ? in[(size_t)j * LD + i]
                     : j < lt_ld_fp8(COLS) ? 0
                                           : 0xCD;
      ck_assert_msg(got == want, "(%d,%d): 0x%02x, want 0x%02x", j, i, got,
                    want);
    }
  free(out);
  free(in);
  test_free(d_in);
  test_free(d_out);
}
END_TEST

/* The roll, per tensor: the amax into its slot, the scale from the
 * history's max, amax zeroed, the step advanced. A history of zeros keeps
 * the previous scale (issue 28, defect 2: it gave 1); an infinite amax is
 * counted and keeps it too (defect 7: the inf-history branch on the GPU);
 * an amax past the range of the scale used counts an overflow. The
 * weights keep the scale_inv their codes were written with; the others
 * take 1 / the new scale. */
START_TEST(roll_moves_the_amax_and_scales_once) {
  enum { LAYERS = 2, COUNT = 3 * LAYERS };
  fp8_meta meta[COUNT];
  memset(meta, 0, sizeof meta);
  for (int t = 0; t < COUNT; t++)
    meta[t].scale = meta[t].scale_inv = 4.0f;
  meta[0].amax = 1.0f;      /* W1: scale 256; scale_inv stays 4 */
  meta[3].amax = 0.0f;      /* X2: empty history, scale 4 kept */
  meta[4].amax = INFINITY;  /* dZ1: inf, kept and counted */
  meta[5].amax = 100000.0f; /* dZ2 (E5M2): 100000 * 4 > 57344 */
  meta[5].history[7] = 2.0f;
  fp8_meta *d_meta = test_upload(meta, sizeof meta);
  uint32_t step = 3;
  uint32_t *d_step = test_upload(&step, sizeof step);
  fp8_roll_args r = {.d_meta = d_meta,
                     .layers = LAYERS,
                     .gradient = LT_FP8_E5M2,
                     .d_step = d_step};
  ck_assert_int_eq(fp8_roll(&r, NULL, 0), 0);
  test_download(meta, d_meta, sizeof meta);
  test_download(&step, d_step, sizeof step);
  ck_assert_uint_eq(step, 4);
  ck_assert(meta[0].history[3] == 1.0f && meta[0].scale == 256.0f);
  ck_assert_msg(meta[0].scale_inv == 4.0f,
                "W1's scale_inv %g: the codes SGD "
                "wrote keep theirs",
                meta[0].scale_inv);
  ck_assert_msg(meta[3].scale == 4.0f && meta[3].scale_inv == 0.25f,
                "an empty history: scale %g, want the previous 4",
                meta[3].scale);
  ck_assert_msg(meta[4].scale == 4.0f && meta[4].bad_amax == 1,
                "an inf amax: scale %g, bad %u", meta[4].scale,
                meta[4].bad_amax);
  float want = 1.0f;
  fp8_scale_from_amax(&want, 100000.0f, LT_FP8_E5M2, NULL, 0);
  ck_assert(meta[5].scale == want && meta[5].scale_inv == 1.0f / want);
  ck_assert_uint_eq(meta[5].overflows, 1);
  for (int t = 0; t < COUNT; t++)
    ck_assert_msg(meta[t].amax == 0.0f, "tensor %d: amax not zeroed", t);
  test_free(d_meta);
  test_free(d_step);
}
END_TEST

int main(void) {
  test_require_fp8("fp8_cast");
  seed = test_seed("fp8_cast");
  Suite *suite = suite_create("fp8_cast");
  TCase *tc = tcase_create("cast");
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, casts_match_the_reference, 0, CASES);
  tcase_add_test(tc, unaligned_casts_are_refused);
  tcase_add_test(tc, transpose_moves_every_code);
  tcase_add_test(tc, roll_moves_the_amax_and_scales_once);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 1);
}
