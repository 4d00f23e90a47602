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
#include "test_gpu.h"
#include "test_util.h"

static gpu_context *ctx_off;

/* The storage type is part of a plan's key and of its report; a BF16 call
 * runs (FP32 accumulation, exact here: sums of small integers) and an F32
 * call on a BF16 context still computes in FP32. */
START_TEST(types_have_their_own_plans) {
  enum { M = 16, N = 8, K = 24 };
  gpu_context *ctx = ctx_off;
  uint16_t h16[K * M];
  for (int i = 0; i < K * M; i++)
    h16[i] = 0x3F80; /* BF16 1.0 */
  void *d_a = test_upload(h16, sizeof h16);
  void *d_d = test_upload(NULL, M * N * sizeof(float));
  int before = lt_plan_count(ctx);
  lt_matmul_call call = {.shape = {.type = LT_DTYPE_BF16,
                                   .m = M,
                                   .n = N,
                                   .k = K,
                                   .transa = 1,
                                   .lda = K,
                                   .ldb = K,
                                   .ldd = M},
                         .d_a = d_a,
                         .d_b = d_a,
                         .d_d = d_d};
  ck_assert_int_eq(lt_matmul(ctx, &call), 0);
  uint16_t d16[M * N];
  test_download(d16, d_d, sizeof d16);
  for (int i = 0; i < M * N; i++)
    ck_assert_uint_eq(d16[i], 0x41C0); /* BF16 24.0 */
  lt_plan_info info = lt_plan_info_at(ctx, lt_plan_count(ctx) - 1);
  ck_assert_int_eq(info.shape.type, LT_DTYPE_BF16);
  ck_assert_int_eq(info.tf32, 0);
  call.shape.type = LT_DTYPE_F16;
  ck_assert_int_eq(lt_matmul(ctx, &call), 0);
  ck_assert_int_eq(lt_plan_count(ctx), before + 2);
  test_sync(ctx);
  test_free(d_a);
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
  ck_assert_int_eq(decided.auto_choice,
                   decided.unfused_us < decided.fused_us ? 2 : 1);
  ck_assert_int_eq(lt_matmul_auto_on(ctx, GPU_LANE_MAIN, &call), 0);
  ck_assert_int_eq(lt_plan_count(ctx), plans); /* nothing new, no retiming */
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
