/* test_lt_autotune.c: what autotuning compares candidates by: exact
 * autotuning keeps a candidate only if D, the bias gradient and the ReLU
 * mask are the first choice's bit for bit; fast autotuning allows rounding
 * in D and the bias gradient. GPU only: skips (77) without one. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "lt/lt_autotune.h"
#include "lt/lt_matmul.h"
#include "tests/test_gpu.h"
#include "tests/test_util.h"

static gpu_context *ctx_off;

/* Exact autotuning keeps a candidate only if D, the bias gradient and the
 * ReLU mask are the first choice's bit for bit; fast autotuning allows
 * rounding in D and the bias gradient (and so a mask bit where z is within
 * rounding of 0). The comparison kernels count differing words and mask
 * bits (rows < m only). */
START_TEST(autotune_compares_every_output) {
  enum { M = 13, N = 5 };
  size_t bytes = lt_aux_bytes(M, N);
  uint8_t a[16 * N], b[16 * N];
  memset(a, 0x5A, sizeof a);
  memcpy(b, a, sizeof b);
  b[2 * 16 + 1] ^= 0x10; /* row 12, column 2: inside m */
  b[3 * 16 + 1] ^= 0x40; /* row 14, column 3: padding */
  b[4 * 16 + 9] ^= 0xFF; /* a padding byte */
  float x[M * N], y[M * N];
  for (int i = 0; i < M * N; i++)
    x[i] = y[i] = (float)i - 20.0f;
  y[7] = nextafterf(x[7], 100.0f); /* one ulp */
  uint8_t *d_a = test_upload(a, bytes), *d_b = test_upload(b, bytes);
  float *d_x = test_upload(x, sizeof x), *d_y = test_upload(y, sizeof y);
  lt_comparison *d_c = test_upload(NULL, 2 * sizeof(lt_comparison));
  test_fill_device(d_c, 0, 2 * sizeof(lt_comparison));
  ck_assert_int_eq(lt_compare_masks(&d_c[0], d_a, d_b, lt_aux_ld(M), M, N, 0),
                   0);
  ck_assert_int_eq(
      lt_compare_values(&d_c[1], LT_DTYPE_F32, d_x, M, d_y, M, M, N, 0), 0);
  lt_comparison c[2];
  test_download(c, d_c, sizeof c);
  ck_assert_uint_eq(c[0].mask_bits_differ, 1);
  ck_assert_uint_eq(c[1].words_differ, 1);
  ck_assert(c[1].max_diff > 0.0f && c[1].max_ref == 44.0f);
  lt_comparison same = {0}, masked = {.mask_bits_differ = 1};
  for (int tf32 = 0; tf32 < 2; tf32++) {
    ck_assert(
        lt_autotune_accepts(GPU_AUTOTUNE_EXACT, LT_DTYPE_F32, tf32, &same));
    ck_assert(
        !lt_autotune_accepts(GPU_AUTOTUNE_EXACT, LT_DTYPE_F32, tf32, &masked));
    ck_assert(
        lt_autotune_accepts(GPU_AUTOTUNE_FAST, LT_DTYPE_F32, tf32, &masked));
    ck_assert(
        !lt_autotune_accepts(GPU_AUTOTUNE_EXACT, LT_DTYPE_F32, tf32, &c[1]));
    ck_assert(
        lt_autotune_accepts(GPU_AUTOTUNE_FAST, LT_DTYPE_F32, tf32, &c[1]));
  }
  lt_comparison nan = {.max_diff = NAN, .max_ref = 1.0f, .words_differ = 1};
  ck_assert(!lt_autotune_accepts(GPU_AUTOTUNE_FAST, LT_DTYPE_F32, 1, &nan));
  /* BF16: 1.0 (0x3F80) against its neighbour 0x3F81 (one ulp, 2^-7): one
   * word differs; fast accepts it (4u = 2^-6 of the largest), and rejects
   * a difference of 2^-5. */
  uint16_t p[4] = {0x3F80, 0x4000, 0xBF80, 0},
           q[4] = {0x3F81, 0x4000, 0xBF80, 0};
  uint16_t *d_p = test_upload(p, sizeof p), *d_q = test_upload(q, sizeof q);
  ck_assert_int_eq(
      lt_compare_values(&d_c[1], LT_DTYPE_BF16, d_p, 2, d_q, 2, 2, 2, 0), 0);
  test_download(c, d_c, sizeof c);
  ck_assert_uint_eq(c[1].words_differ, 1);
  ck_assert(c[1].max_diff == 0.0078125f && c[1].max_ref == 2.0f);
  ck_assert(lt_autotune_accepts(GPU_AUTOTUNE_FAST, LT_DTYPE_BF16, 0, &c[1]));
  ck_assert(!lt_autotune_accepts(GPU_AUTOTUNE_EXACT, LT_DTYPE_BF16, 0, &c[1]));
  lt_comparison far = {.max_diff = 0.0625f, .max_ref = 2.0f, .words_differ = 1};
  ck_assert(!lt_autotune_accepts(GPU_AUTOTUNE_FAST, LT_DTYPE_BF16, 0, &far));
  test_free(d_p);
  test_free(d_q);
  test_free(d_a);
  test_free(d_b);
  test_free(d_x);
  test_free(d_y);
  test_free(d_c);
}
END_TEST

/* The reference autotuning compares candidates with: a call's outputs
 * kept, then one mask bit flipped (exact: another result; fast: the same,
 * D bounds it), a padding bit flipped (the same), one ulp in D (exact:
 * another; fast: the same). Without the mask in the comparison the first
 * case would pass as the same. */
START_TEST(autotune_reference_sees_every_output) {
  enum { M = 13, N = 4, K = 5 };
  gpu_context *ctx = ctx_off;
  float h[K * M];
  for (int i = 0; i < K * M; i++)
    h[i] = (float)((i * 7) % 11) - 5.0f;
  float *d_a = test_upload(h, sizeof h), *d_x = test_upload(h, sizeof h);
  float *d_bias = test_upload(h, M * sizeof(float));
  float *d_d = test_upload(NULL, M * N * sizeof(float));
  uint8_t *d_mask = test_upload(NULL, lt_aux_bytes(M, N));
  test_fill_device(d_mask, 0, lt_aux_bytes(M, N));
  /* Unpadded leading dimensions: the buffers above are dense. */
  lt_shape shape = lt_shape_forward(K, M, N, 1);
  shape.lda = shape.ldb = K;
  shape.ldd = M;
  lt_matmul_call call = {.shape = shape,
                         .d_a = d_a,
                         .d_b = d_x,
                         .d_d = d_d,
                         .d_bias = d_bias,
                         .d_aux = d_mask};
  ck_assert_int_eq(lt_matmul(ctx, &call), 0);
  lt_tune_reference *ref = NULL;
  ck_assert_int_eq(lt_tune_reference_create(&ref, &call.shape), 0);
  ck_assert_int_eq(lt_tune_reference_keep(ref, &call, ctx->stream), 0);
  int same = -1;
  ck_assert_int_eq(lt_tune_reference_matches(ref, &call, GPU_AUTOTUNE_EXACT, 0,
                                             ctx->stream, &same),
                   0);
  ck_assert_int_eq(same, 1);
  uint8_t mask[16 * N];
  test_download(mask, d_mask, sizeof mask);
  struct {
    int byte, bit, exact_same;
  } flips[] = {{2 * 16 + 1, 4, 0},  /* row 12 < m */
               {2 * 16 + 1, 6, 1},  /* row 14: padding */
               {3 * 16 + 9, 0, 1}}; /* a padding byte */
  for (size_t f = 0; f < sizeof flips / sizeof flips[0]; f++) {
    uint8_t flipped[16 * N];
    memcpy(flipped, mask, sizeof mask);
    flipped[flips[f].byte] ^= (uint8_t)(1u << flips[f].bit);
    test_copy_to_device(d_mask, flipped, sizeof flipped);
    for (int mode = 0; mode < 2; mode++) {
      ck_assert_int_eq(lt_tune_reference_matches(ref, &call,
                                                 mode ? GPU_AUTOTUNE_FAST
                                                      : GPU_AUTOTUNE_EXACT,
                                                 0, ctx->stream, &same),
                       0);
      ck_assert_msg(same == (mode ? 1 : flips[f].exact_same),
                    "flip %zu, %s: same = %d", f, mode ? "fast" : "exact",
                    same);
    }
  }
  test_copy_to_device(d_mask, mask, sizeof mask);
  float d[M * N];
  test_download(d, d_d, sizeof d);
  d[5] = nextafterf(d[5], INFINITY);
  test_copy_to_device(d_d, d, sizeof d);
  ck_assert_int_eq(lt_tune_reference_matches(ref, &call, GPU_AUTOTUNE_EXACT, 0,
                                             ctx->stream, &same),
                   0);
  ck_assert_int_eq(same, 0);
  ck_assert_int_eq(lt_tune_reference_matches(ref, &call, GPU_AUTOTUNE_FAST, 0,
                                             ctx->stream, &same),
                   0);
  ck_assert_int_eq(same, 1);
  lt_tune_reference_destroy(ref);
  test_free(d_a);
  test_free(d_x);
  test_free(d_bias);
  test_free(d_d);
  test_free(d_mask);
}
END_TEST

int main(void) {
  test_require_gpu("lt_autotune");
  ctx_off = test_context(GPU_AUTOTUNE_OFF, GPU_PRECISION_FP32);
  if (!ctx_off) {
    printf("lt_autotune: could not create the GPU context (see above)\n");
    return 1;
  }
  Suite *suite = suite_create("lt_autotune");
  TCase *tc = tcase_create("autotune");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, autotune_compares_every_output);
  tcase_add_test(tc, autotune_reference_sees_every_output);
  suite_add_tcase(suite, tc);
  int status = test_run_suite(suite, 1);
  gpu_context_destroy(ctx_off);
  return status;
}
