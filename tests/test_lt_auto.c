/* test_lt_auto.c: the wrapper's data types and --mode auto: a storage type
 * has its own plans and runs with FP32 accumulation; auto times a call
 * fused and unfused (and DRELU_BGRAD / DGELU_BGRAD split) once per plan,
 * keeps the fastest by its rule, and refuses to decide during graph
 * capture; the split way computes what the fused call does. (The numbers of
 * every epilogue in 16-bit, fused, unfused and auto: test_lt_precision.c.) GPU
 * only: skips (77) without one. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lt/lt_auto.h"
#include "lt/lt_matmul.h"
#include "lt/lt_split.h"
#include "lt/lt_unfused_kernels.h"
#include "tests/test_call_check.h"
#include "tests/test_gpu.h"
#include "tests/test_types.h"
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

/* One DRELU_BGRAD (act 0) or DGELU_BGRAD (act 1) call on random FP32 data
 * (in 129, out 64, batch 96), run by `run` (0: fused, 1: split, 2: auto,
 * 3: split with the caller's partials buffer, the bias gradient finished
 * on the side lane as under GPU_CHAIN_SIDE_PARTIALS) on `ctx`, its D and
 * bias gradient held to the oracle under test_call_check's bound (D exactly
 * 0 where the mask is 0). With `way` (may be NULL), the call's decision as
 * lt_matmul_auto_choice returns it: *way and way_us[]. */
static void check_backward_way(gpu_context *ctx, int act, int run, int *way,
                               float way_us[LT_AUTO_SPLIT + 1]) {
  enum { IN = 129, OUT = 64, N = 96 };
  lt_shape s = lt_shape_activation(lt_shape_backward_data(IN, OUT, N),
                                   (lt_activation)act);
  size_t a_count = (size_t)s.lda * OUT, b_count = (size_t)s.ldb * N;
  size_t d_count = (size_t)s.ldd * N, z_count = (size_t)lt_ld(IN) * N;
  test_rng rng;
  test_rng_init(&rng, test_seed("lt_auto") + (uint64_t)(3 * act + run));
  float *h = malloc((a_count + b_count + z_count) * sizeof(float));
  double *x = malloc((a_count + b_count + z_count) * sizeof(double));
  for (size_t i = 0; i < a_count + b_count + z_count; i++)
    x[i] = h[i] = (float)test_rng_uniform(&rng, i < a_count + b_count ? -1 : -3,
                                          i < a_count + b_count ? 1 : 3);
  static uint8_t mask[(IN + 127) / 128 * 16 * N]; /* lt_aux_bytes(IN, N) */
  for (size_t i = 0; i < sizeof mask; i++)
    mask[i] = (uint8_t)test_rng_next(&rng);
  float *d_in = test_upload(h, (a_count + b_count + z_count) * sizeof(float));
  void *d_aux =
      act ? (void *)(d_in + a_count + b_count) : test_upload(mask, sizeof mask);
  float *d_d = test_upload(NULL, d_count * sizeof(float));
  float *d_db = test_upload(NULL, IN * sizeof(float));
  test_fill_device(d_db, 0xFF, IN * sizeof(float)); /* NaN: overwritten */
  float *d_partials =
      run == 3 ? test_upload(NULL, lt_row_sums_scratch_bound(IN, N)) : NULL;
  lt_matmul_call call = {.shape = s,
                         .d_a = d_in,
                         .d_b = d_in + a_count,
                         .d_d = d_d,
                         .d_bias_grad = d_db,
                         .d_aux = d_aux,
                         .d_partials = d_partials};
  int status = run == 0   ? lt_matmul(ctx, &call)
               : run == 1 ? lt_matmul_split(ctx, &call)
               : run == 2 ? lt_matmul_auto_on(ctx, GPU_LANE_MAIN, &call)
                          : lt_matmul_split_on(ctx, GPU_LANE_MAIN, &call);
  ck_assert_msg(status == 0, "%s", lt_last_error(ctx));
  /* The side lane's partials are joined by nothing here: wait for both. */
  ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
  double *d = test_download_as(LT_DTYPE_F32, d_d, d_count);
  double *db = test_download_as(LT_DTYPE_F32, d_db, IN);
  char label[64];
  snprintf(label, sizeof label, "%s, way %d", lt_epilogue_name(s.epilogue),
           run);
  test_call_result r = {.shape = s,
                        .a = x,
                        .b = x + a_count,
                        .aux_in = act ? NULL : mask,
                        .d = d,
                        .bias_grad = db,
                        .gelu_in = act ? x + a_count + b_count : NULL};
  test_check_call(&r, label);
  if (way)
    ck_assert_msg(
        lt_matmul_auto_choice(ctx, GPU_LANE_MAIN, &call, way, way_us) == 0,
        "%s", lt_last_error(ctx));
  if (!act) test_free(d_aux);
  test_free(d_partials);
  test_free(d_in);
  test_free(d_d);
  test_free(d_db);
  free(h);
  free(x);
  free(d);
  free(db);
}

/* The split way computes what the fused call computes (both held to the
 * oracle under the same bound), on its own, with its bias gradient
 * finished on the side lane, and through --mode auto. */
START_TEST(split_way_matches_the_fused_call) {
  check_backward_way(ctx_off, _i, 0, NULL, NULL);
  check_backward_way(ctx_off, _i, 1, NULL, NULL);
  check_backward_way(ctx_off, _i, 3, NULL, NULL);
}
END_TEST

/* Auto on DRELU_BGRAD / DGELU_BGRAD times three ways: all recorded, the
 * split time or its refusal, the choice one of the three by the rule
 * (fused unless the faster other way is 3 % faster), outputs right; and
 * lt_matmul_auto_choice returns that record (the step tuner's report
 * prints it: split refused as 0). */
START_TEST(auto_chooses_among_three_ways) {
  gpu_context *ctx = test_context(GPU_AUTOTUNE_OFF, GPU_PRECISION_FP32);
  ck_assert_ptr_nonnull(ctx);
  int way = -1;
  float way_us[LT_AUTO_SPLIT + 1] = {-1.0f, -1.0f, -1.0f, -1.0f};
  check_backward_way(ctx, _i, 2, &way, way_us);
  lt_epilogue e = _i ? LT_EPILOGUE_DGELU_BGRAD : LT_EPILOGUE_DRELU_BGRAD;
  lt_plan_info p = {0};
  for (int i = 0; i < lt_plan_count(ctx); i++)
    if (lt_plan_info_at(ctx, i).shape.epilogue == e)
      p = lt_plan_info_at(ctx, i);
  printf("auto %s: fused %.2f, unfused %.2f, split %.2f us: choice %d\n",
         lt_epilogue_name(e), p.fused_us, p.unfused_us, p.split_us,
         p.auto_choice);
  ck_assert(p.auto_choice == LT_AUTO_FUSED ||
            p.auto_choice == LT_AUTO_UNFUSED || p.auto_choice == LT_AUTO_SPLIT);
  ck_assert(p.fused_us > 0.0f && p.unfused_us > 0.0f);
  ck_assert(p.split_us > 0.0f || p.split_us == LT_SPLIT_REFUSED);
  int split = p.split_us > 0.0f && p.split_us < p.unfused_us;
  float other = split ? p.split_us : p.unfused_us;
  lt_auto_choice want = other * 1.03f >= p.fused_us ? LT_AUTO_FUSED
                        : split                     ? LT_AUTO_SPLIT
                                                    : LT_AUTO_UNFUSED;
  ck_assert_int_eq(p.auto_choice, want);
  ck_assert_int_eq(way, p.auto_choice);
  ck_assert(way_us[LT_AUTO_FUSED] == p.fused_us &&
            way_us[LT_AUTO_UNFUSED] == p.unfused_us);
  ck_assert(way_us[LT_AUTO_SPLIT] ==
            (p.split_us == LT_SPLIT_REFUSED ? 0.0f : p.split_us));
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
  tcase_add_loop_test(tc, split_way_matches_the_fused_call, 0, 2);
  tcase_add_loop_test(tc, auto_chooses_among_three_ways, 0, 2);
  suite_add_tcase(suite, tc);
  int status = test_run_suite(suite, 1);
  gpu_context_destroy(ctx_off);
  return status;
}
