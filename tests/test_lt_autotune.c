/* test_lt_autotune.c: which candidates the step tuner may choose
 * (lt/lt_autotune.h): exact accepts a candidate only if D, the bias
 * gradient and the ReLU mask are the first choice's bit for bit; fast
 * allows rounding in D and the bias gradient; the probe has its pattern in
 * every operand type and layout; and the candidates exact accepts on real
 * shapes compute the first one's bits on fresh random data too, in FP32,
 * BF16 and FP16 (the count per plan printed). GPU only: skips (77) without
 * one. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layers/fp8.h"
#include "lt/lt_autotune.h"
#include "lt/lt_matmul.h"
#include "tests/test_gpu.h"
#include "tests/test_types.h"
#include "tests/test_util.h"

static gpu_context *ctx_off;
static gpu_context *ctx_exact[3]; /* FP32, BF16, FP16 */

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
  test_fill_device(d_c, 0, 2 * sizeof(lt_comparison)); /* they accumulate */
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

/* op(M)[r][c] of a stored (ld, cols) matrix, transposed when `trans`. */
static size_t op_index(int r, int c, int ld, int trans) {
  return trans ? (size_t)r * ld + c : (size_t)c * ld + r;
}

/* The probe of lt_probe_fill, read back: in op(A) (m, k) and op(B) (k, n)
 * the first and last of k carry the large factors (A's last negated), the
 * rest is in [-1, 1], the padding rows are zero; for every storage type
 * and FP8 format, both layouts. */
START_TEST(probe_has_its_pattern) {
  enum { M = 20, N = 12, K = 9, LD = 32 };
  struct {
    lt_dtype type;
    lt_fp8 fp8;
    float big_a, big_b;
  } kinds[] = {{LT_DTYPE_F32, LT_FP8_NONE, 1048576.0f, 1.0f},
               {LT_DTYPE_BF16, LT_FP8_NONE, 1048576.0f, 1.0f},
               {LT_DTYPE_F16, LT_FP8_NONE, 16384.0f, 2.0f},
               {LT_DTYPE_BF16, LT_FP8_E4M3, 256.0f, 256.0f},
               {LT_DTYPE_BF16, LT_FP8_E5M2, 256.0f, 256.0f}};
  for (size_t t = 0; t < sizeof kinds / sizeof kinds[0]; t++)
    for (int layout = 0; layout < 8; layout++) {
      /* layouts 4-7: BGRADB, whose bias gradient sums op(B): B carries
       * the large factor and the sign there. */
      int bgradb = layout >= 4;
      float big_a = bgradb ? kinds[t].big_b : kinds[t].big_a;
      float big_b = bgradb ? kinds[t].big_a : kinds[t].big_b;
      lt_shape s = {.type = kinds[t].type,
                    .epilogue =
                        bgradb ? LT_EPILOGUE_BGRADB : LT_EPILOGUE_DEFAULT,
                    .m = M,
                    .n = N,
                    .k = K,
                    .transa = layout & 1,
                    .transb = (layout >> 1) & 1,
                    .lda = LD,
                    .ldb = LD,
                    .ldd = LD,
                    .a_fp8 = kinds[t].fp8,
                    .b_fp8 = kinds[t].fp8};
      size_t size = kinds[t].fp8 ? 1 : lt_dtype_size(s.type);
      size_t a_count = (size_t)LD * (s.transa ? M : K);
      size_t b_count = (size_t)LD * (s.transb ? K : N);
      void *d_a = test_upload(NULL, a_count * size);
      void *d_b = test_upload(NULL, b_count * size);
      ck_assert_int_eq(lt_probe_fill(d_a, d_b, &s, 0), 0);
      double a[LD * M], b[LD * N];
      unsigned char code[LD * N];
      const void *d[2] = {d_a, d_b};
      double *out[2] = {a, b};
      size_t count[2] = {a_count, b_count};
      for (int w = 0; w < 2; w++) {
        if (!kinds[t].fp8) {
          double *got = test_download_as(s.type, d[w], count[w]);
          memcpy(out[w], got, count[w] * sizeof(double));
          free(got);
          continue;
        }
        test_download(code, d[w], count[w]);
        for (size_t i = 0; i < count[w]; i++)
          out[w][i] = fp8_decode(code[i], kinds[t].fp8);
      }
      for (int i = 0; i < M; i++)
        for (int p = 0; p < K; p++) {
          double v = a[op_index(i, p, LD, s.transa)];
          if (p == 0)
            ck_assert_double_eq(v, big_a);
          else if (p == K - 1)
            ck_assert_double_eq(v, bgradb ? big_a : -big_a);
          else
            ck_assert_msg(fabs(v) <= 1.0, "kind %zu A(%d,%d) = %g", t, i, p, v);
        }
      for (int p = 0; p < K; p++)
        for (int j = 0; j < N; j++) {
          double v = b[op_index(p, j, LD, s.transb)];
          if (p == 0)
            ck_assert_double_eq(v, big_b);
          else if (p == K - 1)
            ck_assert_double_eq(v, bgradb ? -big_b : big_b);
          else
            ck_assert_msg(fabs(v) <= 1.0, "kind %zu B(%d,%d) = %g", t, p, j, v);
        }
      /* Stored rows past the logical ones: zero. */
      int a_rows = s.transa ? K : M, b_rows = s.transb ? N : K;
      for (int c = 0; c < (s.transa ? M : K); c++)
        for (int r = a_rows; r < LD; r++)
          ck_assert_double_eq(a[(size_t)c * LD + r], 0.0);
      for (int c = 0; c < (s.transb ? K : N); c++)
        for (int r = b_rows; r < LD; r++)
          ck_assert_double_eq(b[(size_t)c * LD + r], 0.0);
      test_free(d_a);
      test_free(d_b);
    }
}
END_TEST

/* Random values in [-1, 1] uploaded as `type`, count elements. */
static void *random_upload(test_rng *rng, lt_dtype type, size_t count) {
  float *x = malloc(count * sizeof *x);
  for (size_t i = 0; i < count; i++)
    x[i] = (float)test_rng_uniform(rng, -1.0, 1.0);
  void *d = test_upload_as(type, x, count);
  free(x);
  return d;
}

/* The training step's three kinds of call at a real size, in each
 * precision: every candidate exact accepts, run by its pick on fresh
 * random operands, gives the first candidate's D and bias gradient bit for
 * bit. Prints how many the heuristic offered and how many were accepted. */
START_TEST(accepted_candidates_agree_on_fresh_data) {
  enum { IN = 784, OUT = 256, N = 128 };
  gpu_context *ctx = ctx_exact[_i];
  lt_dtype type = _i == 0   ? LT_DTYPE_F32
                  : _i == 1 ? LT_DTYPE_BF16
                            : LT_DTYPE_F16;
  test_rng rng;
  test_rng_init(&rng, test_seed("lt_autotune"));
  lt_shape shapes[3] = {lt_shape_forward(IN, OUT, N, 1),
                        lt_shape_backward_data(OUT, OUT, N),
                        lt_shape_backward_weights(IN, OUT, N, 1)};
  for (int c = 0; c < 3; c++) {
    lt_shape s = shapes[c];
    s.type = type;
    size_t a_count = (size_t)s.lda * (s.transa ? s.m : s.k);
    size_t b_count = (size_t)s.ldb * (s.transb ? s.k : s.n);
    size_t d_count = (size_t)s.ldd * s.n;
    int bias_len = lt_bias_grad_length(&s);
    lt_matmul_call call = {
        .shape = s,
        .d_a = random_upload(&rng, type, a_count),
        .d_b = random_upload(&rng, type, b_count),
        .d_d = test_upload(NULL, d_count * lt_dtype_size(type))};
    if (lt_epilogue_reads_bias(s.epilogue))
      call.d_bias = random_upload(&rng, type, (size_t)s.m);
    if (bias_len)
      call.d_bias_grad =
          test_upload(NULL, (size_t)bias_len * lt_dtype_size(type));
    if (lt_epilogue_uses_aux(s.epilogue)) {
      call.d_aux = test_upload(NULL, lt_call_aux_bytes(&s));
      test_fill_device(call.d_aux, 0x5A, lt_call_aux_bytes(&s));
    }
    lt_candidates cand;
    ck_assert_msg(lt_matmul_candidates(ctx, GPU_LANE_MAIN, &call, &cand) == 0,
                  "%s", lt_last_error(ctx));
    int accepted = 0;
    for (int i = 0; i < cand.count; i++)
      accepted += cand.ok[i];
    printf("lt_autotune: %s %s %dx%dx%d: %d candidates offered, %d compute "
           "the first one's bits\n",
           lt_dtype_name(type), lt_epilogue_name(s.epilogue), s.m, s.n, s.k,
           cand.count, accepted);
    ck_assert_int_eq(cand.ok[0], 1);
    /* Fresh operands, then every accepted candidate against the first. */
    test_free((void *)call.d_a);
    test_free((void *)call.d_b);
    call.d_a = random_upload(&rng, type, a_count);
    call.d_b = random_upload(&rng, type, b_count);
    lt_tune_reference *ref = NULL;
    ck_assert_int_eq(lt_tune_reference_create(&ref, &call.shape), 0);
    for (int i = 0; i < cand.count; i++) {
      if (!cand.ok[i]) continue;
      call.pick.algo = (unsigned char)(i == 0 ? 0 : i + 1);
      ck_assert_msg(lt_matmul(ctx, &call) == 0, "%s", lt_last_error(ctx));
      if (i == 0) {
        ck_assert_int_eq(lt_tune_reference_keep(ref, &call, ctx->stream), 0);
        continue;
      }
      int same = 0;
      ck_assert_int_eq(lt_tune_reference_matches(ref, &call, GPU_AUTOTUNE_EXACT,
                                                 0, ctx->stream, &same),
                       0);
      ck_assert_msg(same,
                    "%s %s: candidate %d accepted but differs on fresh "
                    "data",
                    lt_dtype_name(type), lt_epilogue_name(s.epilogue), i);
    }
    lt_tune_reference_destroy(ref);
    test_free((void *)call.d_a);
    test_free((void *)call.d_b);
    test_free(call.d_d);
    test_free((void *)call.d_bias);
    test_free(call.d_bias_grad);
    test_free(call.d_aux);
  }
}
END_TEST

int main(void) {
  test_require_gpu("lt_autotune");
  ctx_off = test_context(GPU_AUTOTUNE_OFF, GPU_PRECISION_FP32);
  ctx_exact[0] = test_context(GPU_AUTOTUNE_EXACT, GPU_PRECISION_FP32);
  ctx_exact[1] = test_context(GPU_AUTOTUNE_EXACT, GPU_PRECISION_BF16);
  ctx_exact[2] = test_context(GPU_AUTOTUNE_EXACT, GPU_PRECISION_FP16);
  if (!ctx_off || !ctx_exact[0] || !ctx_exact[1] || !ctx_exact[2]) {
    printf("lt_autotune: could not create the GPU context (see above)\n");
    return 1;
  }
  Suite *suite = suite_create("lt_autotune");
  TCase *tc = tcase_create("autotune");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, autotune_compares_every_output);
  tcase_add_test(tc, autotune_reference_sees_every_output);
  tcase_add_test(tc, probe_has_its_pattern);
  tcase_add_loop_test(tc, accepted_candidates_agree_on_fresh_data, 0, 3);
  suite_add_tcase(suite, tc);
  int status = test_run_suite(suite, 1);
  for (int i = 0; i < 3; i++)
    gpu_context_destroy(ctx_exact[i]);
  gpu_context_destroy(ctx_off);
  return status;
}
