/* test_lt_auto.c: the wrapper's data types and --mode auto: a storage type
 * has its own plans and runs with FP32 accumulation; auto times a call
 * fused and unfused once per plan, keeps the faster, and refuses to decide
 * during graph capture. (The numbers of every epilogue in 16-bit, fused,
 * unfused and auto: test_lt_precision.c.) GPU only: skips (77) without
 * one. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/lt_auto.h"
#include "gpu/lt_matmul.h"
#include "tests/test_gpu.h"
#include "tests/test_util.h"

static gpu_context *ctx_off;

/* The storage type is part of a plan's key and of its report, and 16-bit
 * calls accumulate in FP32: each output sums 1 and 263 terms of 2^-8,
 * 519/256 = 2.02734375, which FP32 holds exactly and a 16-bit accumulator
 * could not (BF16 has 8 significant bits: 1 + 2^-8 rounds back to 1); the
 * one rounding at the end gives BF16 2.03125 (0x4002) and FP16 2.02734375
 * (0x400E, exact). */
START_TEST(types_have_their_own_plans) {
  enum { M = 16, N = 8, K = 264 };
  gpu_context *ctx = ctx_off;
  static uint16_t a[2][K * M], b[2][K * N];
  const uint16_t one[2] = {0x3F80, 0x3C00}, small[2] = {0x3B80, 0x1C00};
  for (int t = 0; t < 2; t++) { /* BF16, FP16: 1.0 and 2^-8 */
    for (int i = 0; i < M; i++)
      for (int p = 0; p < K; p++)
        a[t][i * K + p] = p == 0 ? one[t] : small[t];
    for (int i = 0; i < K * N; i++)
      b[t][i] = one[t];
  }
  const uint16_t want[2] = {0x4002, 0x400E};
  const lt_dtype types[2] = {LT_DTYPE_BF16, LT_DTYPE_F16};
  void *d_a = test_upload(NULL, sizeof a[0]);
  void *d_b = test_upload(NULL, sizeof b[0]);
  void *d_d = test_upload(NULL, M * N * sizeof(float));
  int before = lt_plan_count(ctx);
  for (int t = 0; t < 2; t++) {
    test_copy_to_device(d_a, a[t], sizeof a[t]);
    test_copy_to_device(d_b, b[t], sizeof b[t]);
    lt_matmul_call call = {.shape = {.type = types[t],
                                     .m = M,
                                     .n = N,
                                     .k = K,
                                     .transa = 1,
                                     .lda = K,
                                     .ldb = K,
                                     .ldd = M},
                           .d_a = d_a,
                           .d_b = d_b,
                           .d_d = d_d};
    ck_assert_int_eq(lt_matmul(ctx, &call), 0);
    uint16_t d16[M * N];
    test_download(d16, d_d, sizeof d16);
    for (int i = 0; i < M * N; i++)
      ck_assert_msg(d16[i] == want[t], "%s: D[%d] = 0x%04x, expected 0x%04x",
                    lt_dtype_name(types[t]), i, d16[i], want[t]);
    lt_plan_info info = lt_plan_info_at(ctx, lt_plan_count(ctx) - 1);
    ck_assert_int_eq(info.shape.type, types[t]);
    ck_assert_int_eq(info.tf32, 0);
  }
  ck_assert_int_eq(lt_plan_count(ctx), before + 2);
  test_sync(ctx);
  test_free(d_a);
  test_free(d_b);
  test_free(d_d);
}
END_TEST

/* --mode auto: a call is timed fused and unfused once per plan (both times
 * recorded, the choice the faster), later calls reuse the choice, the
 * outputs are those of either way, and deciding is refused during
 * capture. */
START_TEST(auto_decides_once_per_plan) {
  enum { M = 64, N = 32, K = 48 };
  gpu_context *ctx = test_context(GPU_AUTOTUNE_OFF, GPU_PRECISION_FP32);
  ck_assert_ptr_nonnull(ctx);
  float h[K * M], bias[M];
  for (int i = 0; i < K * M; i++)
    h[i] = (float)((i * 5) % 7) - 3.0f;
  for (int i = 0; i < M; i++)
    bias[i] = (float)(i % 5) - 2.0f;
  float *d_a = test_upload(h, sizeof h), *d_b = test_upload(h, sizeof h);
  float *d_bias = test_upload(bias, sizeof bias);
  float *d_d = test_upload(NULL, M * N * sizeof(float));
  float *d_ref = test_upload(NULL, M * N * sizeof(float));
  uint8_t *d_mask = test_upload(NULL, lt_aux_bytes(M, N));
  lt_matmul_call call = {.shape = lt_shape_forward(K, M, N, 1),
                         .d_a = d_a,
                         .d_b = d_b,
                         .d_d = d_ref,
                         .d_bias = d_bias,
                         .d_aux = d_mask};
  /* Capture first: not decided yet, so refused. */
  cudaGraph_t graph = NULL;
  ck_assert_int_eq(
      cudaStreamBeginCapture(ctx->stream, cudaStreamCaptureModeThreadLocal),
      cudaSuccess);
  ck_assert_int_eq(lt_matmul_auto_on(ctx, GPU_LANE_MAIN, &call), -1);
  cudaStreamEndCapture(ctx->stream, &graph);
  if (graph) cudaGraphDestroy(graph);
  cudaGetLastError();
  ck_assert_ptr_nonnull(strstr(lt_last_error(ctx), "outside graph capture"));
  ck_assert_int_eq(lt_matmul(ctx, &call), 0); /* fused reference */
  call.d_d = d_d;
  ck_assert_int_eq(lt_matmul_auto_on(ctx, GPU_LANE_MAIN, &call), 0);
  int plans = lt_plan_count(ctx);
  lt_plan_info decided = {0};
  for (int i = 0; i < plans; i++) {
    lt_plan_info p = lt_plan_info_at(ctx, i);
    if (p.shape.epilogue == LT_EPILOGUE_RELU_AUX_BIAS) decided = p;
  }
  ck_assert_int_ne(decided.auto_choice, 0);
  ck_assert(decided.fused_us > 0.0f && decided.unfused_us > 0.0f);
  /* The twin wins only by 3 % (lt_auto.c). */
  ck_assert_int_eq(decided.auto_choice,
                   decided.unfused_us * 1.03f < decided.fused_us ? 2 : 1);
  ck_assert_int_eq(lt_matmul_auto_on(ctx, GPU_LANE_MAIN, &call), 0);
  ck_assert_int_eq(lt_plan_count(ctx), plans); /* nothing new */
  for (int i = 0; i < plans; i++) {            /* and no retiming */
    lt_plan_info p = lt_plan_info_at(ctx, i);
    if (p.shape.epilogue != LT_EPILOGUE_RELU_AUX_BIAS) continue;
    ck_assert(p.fused_us == decided.fused_us &&
              p.unfused_us == decided.unfused_us);
  }
  /* Small integers: every way sums them exactly. */
  float got[M * N], want[M * N];
  test_download(got, d_d, sizeof got);
  test_download(want, d_ref, sizeof want);
  ck_assert_mem_eq(got, want, sizeof got);
  test_free(d_a);
  test_free(d_b);
  test_free(d_bias);
  test_free(d_d);
  test_free(d_ref);
  test_free(d_mask);
  gpu_context_destroy(ctx);
}
END_TEST

int main(void) {
  test_require_gpu("lt_auto");
  ctx_off = test_context(GPU_AUTOTUNE_OFF, GPU_PRECISION_FP32);
  if (!ctx_off) {
    printf("lt_auto: could not create the GPU context (see above)\n");
    return 1;
  }
  Suite *suite = suite_create("lt_auto");
  TCase *tc = tcase_create("auto");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, types_have_their_own_plans);
  tcase_add_test(tc, auto_decides_once_per_plan);
  suite_add_tcase(suite, tc);
  int status = test_run_suite(suite, 1);
  gpu_context_destroy(ctx_off);
  return status;
}
