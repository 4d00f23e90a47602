/* test_gpu_warm.c: the start-up thread (gpu/gpu_warm.h) runs its job on a
 * thread of its own, after the device started (its primary context active
 * there, asked of the driver: no runtime call before it in the job makes
 * one), and says so; on a device that cannot start it runs none and says
 * that; mnist_train's job
 * (app/gpu_start_check.h) gives on that thread the answer the caller's
 * own thread gives: a device, and the verdict and words of
 * lt_precision_check_device for the same precision and epilogues. Skips
 * (77) without a GPU. */
#include <check.h>
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <string.h>

#include "app/gpu_start_check.h"
#include "gpu/gpu_driver.h"
#include "gpu/gpu_warm.h"
#include "lt/lt_precision.h"
#include "tests/test_gpu.h"
#include "tests/test_util.h"

typedef struct seen {
  pthread_t thread; /* where the job ran */
  int runs;
  int active; /* device 0's primary context active when the job started
                 (-1: the driver could not say) */
  int device; /* cudaGetDevice there */
} seen;

/* Whether device 0's primary context is active (the driver's
 * cuDevicePrimaryCtxGetState), or -1 when the driver cannot say. */
static int primary_active(void) {
  PFN_cuDeviceGet_v2000 get =
      (PFN_cuDeviceGet_v2000)gpu_driver_function("cuDeviceGet", 2000);
  PFN_cuDevicePrimaryCtxGetState_v7000 state =
      (PFN_cuDevicePrimaryCtxGetState_v7000)gpu_driver_function(
          "cuDevicePrimaryCtxGetState", 7000);
  CUdevice device;
  unsigned flags = 0;
  int active = 0;
  if (!get || !state || get(&device, 0) != CUDA_SUCCESS ||
      state(device, &flags, &active) != CUDA_SUCCESS)
    return -1;
  return active;
}

/* The job: where and when it ran. No Check assertion here, off the
 * test's thread. */
static void note(void *arg) {
  seen *s = arg;
  s->active = primary_active();
  s->thread = pthread_self();
  s->runs++;
  s->device = -1;
  (void)cudaGetDevice(&s->device);
}

START_TEST(the_job_runs_once_on_a_thread_of_its_own) {
  seen s = {0};
  gpu_warm *w = gpu_warm_create(0, note, &s);
  ck_assert_ptr_nonnull(w);
  ck_assert_int_eq(gpu_warm_destroy(w), 1);
  ck_assert_int_eq(s.runs, 1);
  ck_assert(!pthread_equal(s.thread, pthread_self()));
  ck_assert_int_eq(s.active, 1);
  ck_assert_int_eq(s.device, 0);
  /* No job: nothing ran, and it says so. */
  ck_assert_int_eq(gpu_warm_destroy(gpu_warm_create(0, NULL, NULL)), 0);
  ck_assert_int_eq(gpu_warm_destroy(NULL), 0);
}
END_TEST

START_TEST(a_device_that_cannot_start_runs_no_job) {
  int count = 0;
  ck_assert_int_eq(cudaGetDeviceCount(&count), cudaSuccess);
  seen s = {0};
  ck_assert_int_eq(gpu_warm_destroy(gpu_warm_create(count, note, &s)), 0);
  ck_assert_int_eq(s.runs, 0);
  /* The thread's failure is its own: this thread's last error is clean. */
  ck_assert_int_eq(cudaGetLastError(), cudaSuccess);
}
END_TEST

/* The start check of `precision` and every epilogue on the start-up
 * thread against the same check here. */
static void same_answer_on_both_threads(gpu_precision precision) {
  lt_epilogue_set all = 0;
  for (int e = 0; e < LT_EPILOGUE_COUNT; e++)
    all |= LT_EPILOGUE_BIT(e);
  gpu_start_check there, here;
  gpu_start_check_init(&there, 0, precision, all);
  ck_assert_int_eq(
      gpu_warm_destroy(gpu_warm_create(0, gpu_start_check_job, &there)), 1);
  gpu_start_check_init(&here, 0, precision, all);
  gpu_start_check_run(&here);
  ck_assert_int_eq(there.available, 1);
  ck_assert_int_eq(here.available, 1);
  ck_assert_int_eq(there.verdict, here.verdict);
  ck_assert_str_eq(there.why, here.why);
}

START_TEST(the_start_check_answers_alike_on_either_thread) {
  same_answer_on_both_threads(GPU_PRECISION_FP32);
  same_answer_on_both_threads(GPU_PRECISION_BF16);
  same_answer_on_both_threads(GPU_PRECISION_FP8);
}
END_TEST

int main(void) {
  test_require_gpu("gpu_warm");
  Suite *s = suite_create("gpu_warm");
  TCase *tc = tcase_create("warm");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, the_job_runs_once_on_a_thread_of_its_own);
  tcase_add_test(tc, a_device_that_cannot_start_runs_no_job);
  tcase_add_test(tc, the_start_check_answers_alike_on_either_thread);
  suite_add_tcase(s, tc);
  return test_run_suite(s, 1);
}
