/* test_lt_rules.c: the cuBLASLt wrapper's rules and plans: broken rules
 * are refused with the rule named, fused and unfused alike; plans are
 * keyed by shape and alignment, never by the first call's pointers; a TF32
 * context really computes in TF32. (Autotuning's comparisons:
 * test_lt_autotune.c.) GPU only: skips (77) without one. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lt/lt_matmul.h"
#include "lt/lt_unfused.h"
#include "tests/test_gpu.h"
#include "tests/test_util.h"

static gpu_context *ctx_exact, *ctx_off, *ctx_tf32, *ctx_fp32_off;

/* Rules broken: a clear error naming the rule, never a crash; the unfused
 * twin refuses the same calls (_i = 1). */
START_TEST(wrapper_refuses_broken_rules) {
  gpu_context *ctx = ctx_exact;
  int (*op)(gpu_context *, const lt_matmul_call *) =
      _i ? lt_matmul_unfused : lt_matmul;
  float *d = test_upload(NULL, 4096 * sizeof(float));
  float *bias = test_upload(NULL, 256 * sizeof(float));
  uint8_t *aux = test_upload(NULL, 4096);
  lt_shape plain = {.m = 16, .n = 8, .k = 4, .lda = 16, .ldb = 4, .ldd = 16};
  lt_shape fwd = lt_shape_forward(4, 16, 8, 0);
  lt_shape relu = lt_shape_forward(4, 100, 8, 1);
  lt_shape drelu = lt_shape_backward_data(16, 4, 8);
  lt_shape bgradb = lt_shape_backward_weights(16, 8, 4, 1);
  struct {
    lt_matmul_call call;
    const char *words;
  } cases[] = {
      {{.shape = {.m = 16,
                  .n = 8,
                  .k = 4,
                  .lda = 16,
                  .ldb = 4,
                  .ldd = 16,
                  .epilogue = LT_EPILOGUE_BGRADB},
        .d_a = d,
        .d_b = d,
        .d_d = d,
        .d_bias_grad = bias},
       "transb = T"},
      {{.shape = {.m = 100,
                  .n = 8,
                  .k = 4,
                  .transa = 1,
                  .lda = 4,
                  .ldb = 4,
                  .ldd = 100,
                  .epilogue = LT_EPILOGUE_RELU_AUX_BIAS,
                  .aux_ld = 100},
        .d_a = d,
        .d_b = d,
        .d_d = d,
        .d_bias = bias,
        .d_aux = aux},
       "aux_ld a multiple of 128"},
      {{.shape = {.m = 200,
                  .n = 8,
                  .k = 4,
                  .transa = 1,
                  .lda = 4,
                  .ldb = 4,
                  .ldd = 200,
                  .epilogue = LT_EPILOGUE_RELU_AUX_BIAS,
                  .aux_ld = 128},
        .d_a = d,
        .d_b = d,
        .d_d = d,
        .d_bias = bias,
        .d_aux = aux},
       ">= m = 200"},
      {{.shape = plain, .d_a = d + 1, .d_b = d, .d_d = d}, "16-byte aligned"},
      {{.shape = fwd, .d_a = d, .d_b = d, .d_d = d}, "expects a bias"},
      {{.shape = drelu, .d_a = d, .d_b = d, .d_d = d, .d_bias_grad = bias},
       "expects an aux"},
      {{.shape = {.m = 16, .n = 0, .k = 4, .lda = 16, .ldb = 4, .ldd = 16},
        .d_a = d,
        .d_b = d,
        .d_d = d},
       "m, n, k >= 1"},
      {{.shape = {.m = 16, .n = 8, .k = 4, .lda = 8, .ldb = 4, .ldd = 16},
        .d_a = d,
        .d_b = d,
        .d_d = d},
       "lda >= 16"},
      /* Stray pointers: an epilogue takes exactly its own vectors. */
      {{.shape = fwd,
        .d_a = d,
        .d_b = d,
        .d_d = d,
        .d_bias = bias,
        .d_aux = aux},
       "BIAS takes no aux"},
      {{.shape = plain, .d_a = d, .d_b = d, .d_d = d, .d_aux = aux},
       "DEFAULT takes no aux"},
      {{.shape = bgradb,
        .d_a = d,
        .d_b = d,
        .d_d = d,
        .d_bias_grad = bias,
        .d_aux = aux},
       "BGRADB takes no aux"},
      {{.shape = plain, .d_a = d, .d_b = d, .d_d = d, .d_bias = bias},
       "DEFAULT takes no bias"},
      {{.shape = drelu,
        .d_a = d,
        .d_b = d,
        .d_d = d,
        .d_bias = bias,
        .d_aux = aux},
       "takes no bias pointer"},
      {{.shape = relu,
        .d_a = d,
        .d_b = d,
        .d_d = d,
        .d_bias = bias,
        .d_bias_grad = bias,
        .d_aux = aux},
       "takes no bias-gradient"},
      {{.shape = {.m = 16,
                  .n = 8,
                  .k = 4,
                  .lda = 16,
                  .ldb = 4,
                  .ldd = 16,
                  .aux_ld = 128},
        .d_a = d,
        .d_b = d,
        .d_d = d},
       "expected aux_ld 0"},
      {{.shape = {.type = LT_DTYPE_COUNT,
                  .m = 16,
                  .n = 8,
                  .k = 4,
                  .lda = 16,
                  .ldb = 4,
                  .ldd = 16},
        .d_a = d,
        .d_b = d,
        .d_d = d},
       "unknown data type"},
  };
  int before = lt_plan_count(ctx);
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    ck_assert_int_eq(op(ctx, &cases[i].call), -1);
    const char *err = lt_last_error(ctx);
    ck_assert_msg(
        strstr(err, cases[i].words) &&
            strstr(err, lt_epilogue_name(cases[i].call.shape.epilogue)),
        "%s case %zu: '%s' lacks '%s'", _i ? "unfused" : "fused", i, err,
        cases[i].words);
  }
  ck_assert_int_eq(lt_plan_count(ctx), before); /* nothing was built */
  test_sync(ctx);
  test_free(d);
  test_free(bias);
  test_free(aux);
}
END_TEST

/* Plans are built once per shape and alignment and reused. */
START_TEST(plans_are_cached) {
  gpu_context *ctx = ctx_off;
  float *d = test_upload(NULL, 64 * 64 * sizeof(float));
  test_fill_device(d, 0, 64 * 64 * sizeof(float));
  int before = lt_plan_count(ctx);
  lt_matmul_call call = {
      .shape = {.m = 32, .n = 32, .k = 32, .lda = 32, .ldb = 32, .ldd = 32},
      .d_a = d,
      .d_b = d + 1024,
      .d_d = d + 2048};
  for (int r = 0; r < 5; r++)
    ck_assert_int_eq(lt_matmul(ctx, &call), 0);
  ck_assert_int_eq(lt_plan_count(ctx), before + 1);
  /* Other buffers with the same alignment share the plan... */
  call.d_b = d + 1024 + 64;
  call.d_d = d + 2048 + 128;
  ck_assert_int_eq(lt_matmul(ctx, &call), 0);
  ck_assert_int_eq(lt_plan_count(ctx), before + 1);
  /* ...another shape or a less aligned operand does not. */
  call.shape.n = 31;
  ck_assert_int_eq(lt_matmul(ctx, &call), 0);
  ck_assert_int_eq(lt_plan_count(ctx), before + 2);
  call.d_d = d + 2048 + 4;
  ck_assert_int_eq(lt_matmul(ctx, &call), 0);
  ck_assert_int_eq(lt_plan_count(ctx), before + 3);
  /* The bias vector's alignment is part of the key too. */
  lt_matmul_call biased = {.shape = lt_shape_forward(32, 32, 32, 0),
                           .d_a = d,
                           .d_b = d + 1024,
                           .d_d = d + 2048,
                           .d_bias = d + 3072};
  ck_assert_int_eq(lt_matmul(ctx, &biased), 0);
  ck_assert_int_eq(lt_plan_count(ctx), before + 4);
  biased.d_bias = d + 3072 + 64; /* 256-byte aligned: the same plan */
  ck_assert_int_eq(lt_matmul(ctx, &biased), 0);
  ck_assert_int_eq(lt_plan_count(ctx), before + 4);
  biased.d_bias = d + 3072 + 4; /* 16-byte aligned: another plan */
  ck_assert_int_eq(lt_matmul(ctx, &biased), 0);
  ck_assert_int_eq(lt_plan_count(ctx), before + 5);
  test_sync(ctx);
  test_free(d);
}
END_TEST

/* One plan, two calls with their own bias and mask buffers: each call
 * reads and writes its own (the plan keeps no pointer of the call that
 * built it). A = 0, so D = ReLU(bias) and the mask is bias >= 0. */
START_TEST(a_plan_serves_other_buffers) {
  enum { M = 40, N = 3, K = 2 };
  gpu_context *ctx = ctx_exact;
  float h_bias[2][M];
  for (int i = 0; i < M; i++) {
    h_bias[0][i] = i % 2 ? 1.0f : -1.0f;
    h_bias[1][i] = i % 2 ? -2.0f : 2.0f;
  }
  /* A is (lt_ld(K), M) = (8, 40): 320 floats. */
  float *zeros = test_upload(NULL, 512 * sizeof(float));
  test_fill_device(zeros, 0, 512 * sizeof(float));
  float *bias[2] = {test_upload(h_bias[0], sizeof h_bias[0]),
                    test_upload(h_bias[1], sizeof h_bias[1])};
  float *out[2] = {test_upload(NULL, M * N * sizeof(float)),
                   test_upload(NULL, M * N * sizeof(float))};
  uint8_t *mask[2] = {test_upload(NULL, lt_aux_bytes(M, N)),
                      test_upload(NULL, lt_aux_bytes(M, N))};
  int before = lt_plan_count(ctx);
  for (int c = 0; c < 2; c++) {
    lt_matmul_call call = {.shape = lt_shape_forward(K, M, N, 1),
                           .d_a = zeros,
                           .d_b = zeros,
                           .d_d = out[c],
                           .d_bias = bias[c],
                           .d_aux = mask[c]};
    ck_assert_int_eq(lt_matmul(ctx, &call), 0);
  }
  ck_assert_int_eq(lt_plan_count(ctx), before + 1);
  for (int c = 0; c < 2; c++) {
    float d[M * N];
    uint8_t bits[16 * N];
    test_download(d, out[c], sizeof d);
    test_download(bits, mask[c], sizeof bits);
    for (int j = 0; j < N; j++)
      for (int i = 0; i < M; i++) {
        float want = h_bias[c][i] > 0 ? h_bias[c][i] : 0.0f;
        ck_assert_msg(d[j * M + i] == want, "call %d: D(%d,%d) = %g, want %g",
                      c, i, j, d[j * M + i], want);
        ck_assert_int_eq((bits[j * 16 + i / 8] >> (i % 8)) & 1,
                         h_bias[c][i] >= 0);
      }
  }
  test_free(zeros);
  for (int c = 0; c < 2; c++) {
    test_free(bias[c]);
    test_free(out[c]);
    test_free(mask[c]);
  }
}
END_TEST

/* The math mode, proven by its arithmetic: A = 1 + 2^-12 (exact in FP32,
 * below half an ulp of TF32's 10-bit mantissa, so TF32 rounds it to 1),
 * B = 1, k = 784: FP32 gives 784 + 784 / 4096 = 784.19140625 exactly (every
 * partial sum is a multiple of 2^-12 below 2^10: 22 bits), TF32 gives 784.
 * At the layer shape of test_mlp's TF32 network (m = 256, n = 256). */
START_TEST(tf32_context_computes_in_tf32) {
  enum { M = 256, N = 256, K = 784 };
  float *h = malloc((size_t)K * M * sizeof(float));
  for (int i = 0; i < K * M; i++)
    h[i] = 1.0f + 1.0f / 4096.0f;
  float *d_a = test_upload(h, (size_t)K * M * sizeof(float));
  for (int i = 0; i < K * N; i++)
    h[i] = 1.0f;
  float *d_b = test_upload(h, (size_t)K * N * sizeof(float));
  float *d_d = test_upload(NULL, (size_t)M * N * sizeof(float));
  gpu_context *ctxs[2] = {ctx_fp32_off, ctx_tf32};
  const float want[2] = {784.19140625f, 784.0f};
  for (int t = 0; t < 2; t++) {
    lt_matmul_call call = {
        .shape =
            {.m = M, .n = N, .k = K, .transa = 1, .lda = K, .ldb = K, .ldd = M},
        .d_a = d_a,
        .d_b = d_b,
        .d_d = d_d};
    ck_assert_int_eq(lt_matmul(ctxs[t], &call), 0);
    test_download(h, d_d, (size_t)M * N * sizeof(float));
    for (int i = 0; i < M * N; i++)
      ck_assert_msg(h[i] == want[t], "%s: D[%d] = %.9g, expected %.9g",
                    t ? "TF32" : "FP32", i, h[i], want[t]);
  }
  free(h);
  test_free(d_a);
  test_free(d_b);
  test_free(d_d);
}
END_TEST

int main(void) {
  test_require_gpu("lt_rules");
  ctx_exact = test_context(GPU_AUTOTUNE_EXACT, GPU_PRECISION_FP32);
  ctx_off = test_context(GPU_AUTOTUNE_OFF, GPU_PRECISION_FP32);
  ctx_fp32_off = test_context(GPU_AUTOTUNE_OFF, GPU_PRECISION_FP32);
  ctx_tf32 = test_context(GPU_AUTOTUNE_EXACT, GPU_PRECISION_TF32);
  if (!ctx_exact || !ctx_off || !ctx_tf32 || !ctx_fp32_off) {
    printf("lt_rules: could not create the GPU contexts (see above)\n");
    return 1;
  }
  Suite *suite = suite_create("lt_rules");
  TCase *tc = tcase_create("rules");
  tcase_set_timeout(tc, 300);
  tcase_add_loop_test(tc, wrapper_refuses_broken_rules, 0, 2);
  tcase_add_test(tc, plans_are_cached);
  tcase_add_test(tc, a_plan_serves_other_buffers);
  tcase_add_test(tc, tf32_context_computes_in_tf32);
  suite_add_tcase(suite, tc);
  int status = test_run_suite(suite, 1);
  gpu_context_destroy(ctx_tf32);
  gpu_context_destroy(ctx_fp32_off);
  gpu_context_destroy(ctx_off);
  gpu_context_destroy(ctx_exact);
  return status;
}
