/* test_lt_probe.c: the start-up probe (lt/lt_probe.h) on a real GPU: on
 * a GPU of compute capability 8.0 or newer (the H200) every precision
 * passes for the epilogues of every kind of run (training and inference,
 * ReLU and GELU: lt_run_epilogues), through lt_precision_check_device as
 * the programs call it, in well under a second; an empty set asks nothing;
 * the wrapper's lt_matmul_plannable plans without launching or caching (D
 * keeps its bytes, no plan added) and refuses a call cuBLASLt's rules
 * forbid. Which epilogues a run probes is tested without a GPU
 * (test_gpu_arch). Skips (77) without a GPU. */
#include <check.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lt/lt_matmul.h"
#include "lt/lt_precision.h"
#include "lt/lt_probe.h"
#include "tests/test_gpu.h"
#include "tests/test_util.h"

static double seconds_now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

START_TEST(every_precision_passes_on_this_gpu) {
  struct cudaDeviceProp prop;
  ck_assert_int_eq(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  int capability = prop.major * 10 + prop.minor;
  if (capability < 80) {
    printf("%s (%d.%d): not a GPU every precision runs on; skipped\n",
           prop.name, prop.major, prop.minor);
    return;
  }
  for (int p = 0; p < GPU_PRECISION_COUNT; p++)
    for (int a = 0; a < LT_ACTIVATION_COUNT; a++)
      for (int training = 1; training >= 0; training--) {
        lt_epilogue_set set =
            lt_run_epilogues((lt_activation)a, training, LT_RUN_BOTH);
        char msg[1024] = "x";
        double start = seconds_now();
        int probe = lt_probe_precision(msg, sizeof msg, 0, prop.name,
                                       capability, (gpu_precision)p, set);
        double took = seconds_now() - start;
        printf("probe %s %s %s on %s: %.2f ms\n",
               gpu_precision_name((gpu_precision)p),
               lt_activation_name((lt_activation)a),
               training ? "training" : "inference", prop.name, 1e3 * took);
        ck_assert_msg(probe == 0, "%s", msg);
        ck_assert_str_eq(msg, "");
        ck_assert_msg(took < 1.0, "the probe took %.3f s", took);
        ck_assert_int_eq(lt_precision_check_device(msg, sizeof msg, 0,
                                                   (gpu_precision)p, set),
                         0);
        ck_assert_str_eq(msg, "");
      }
  ck_assert_int_eq(cudaPeekAtLastError(), cudaSuccess);
}
END_TEST

START_TEST(empty_set_asks_nothing) {
  struct cudaDeviceProp prop;
  ck_assert_int_eq(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  char msg[1024] = "x";
  /* FP16 even on a GPU without its tensor cores: no epilogue asked, no
   * epilogue refused */
  ck_assert_int_eq(lt_probe_precision(msg, sizeof msg, 0, prop.name,
                                      prop.major * 10 + prop.minor,
                                      GPU_PRECISION_FP16, 0),
                   0);
  ck_assert_str_eq(msg, "");
  ck_assert_int_eq(cudaPeekAtLastError(), cudaSuccess);
}
END_TEST

START_TEST(plannable_runs_nothing_and_refuses_rules) {
  gpu_context *ctx = test_context(GPU_AUTOTUNE_EXACT, GPU_PRECISION_FP32);
  ck_assert_ptr_nonnull(ctx);
  enum { W = 64 };
  float h_d[W * W];
  for (int i = 0; i < W * W; i++)
    h_d[i] = 7.0f;
  float *d_a = test_upload(NULL, sizeof h_d),
        *d_b = test_upload(NULL, sizeof h_d);
  float *d_d = test_upload(h_d, sizeof h_d);
  float *d_bias = test_upload(NULL, W * sizeof(float));
  lt_matmul_call call = {.shape = lt_shape_backward_weights(W, W, W, 1),
                         .d_a = d_a,
                         .d_b = d_b,
                         .d_d = d_d,
                         .d_bias_grad = d_bias};
  int plans = lt_plan_count(ctx);
  ck_assert_int_eq(lt_matmul_plannable(ctx, &call), 0);
  ck_assert_int_eq(lt_plan_count(ctx), plans);
  float back[W * W];
  test_download(back, d_d, sizeof back);
  ck_assert_int_eq(memcmp(back, h_d, sizeof back), 0);
  /* BGRADB needs transb = T (cuBLASLt: NOT_SUPPORTED otherwise) */
  call.shape.transb = 0;
  ck_assert_int_eq(lt_matmul_plannable(ctx, &call), -1);
  ck_assert_ptr_nonnull(strstr(lt_last_error(ctx), "BGRADB"));
  test_free(d_bias);
  test_free(d_d);
  test_free(d_b);
  test_free(d_a);
  gpu_context_destroy(ctx);
}
END_TEST

int main(void) {
  test_require_gpu("lt_probe");
  Suite *s = suite_create("lt_probe");
  TCase *tc = tcase_create("probe");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, every_precision_passes_on_this_gpu);
  tcase_add_test(tc, empty_set_asks_nothing);
  tcase_add_test(tc, plannable_runs_nothing_and_refuses_rules);
  suite_add_tcase(s, tc);
  return test_run_suite(s, 1);
}
