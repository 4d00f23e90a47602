/* test_gpu_arch_device.c: the architecture checks on a real GPU, asserting
 * what is right for the build at hand: in a build with code for the device
 * (sm_90 only, the default list, or "80" only, JIT-compiled on an H200)
 * mnist_train passes the check; in one without ("100" only on an H200) it
 * exits non-zero before training, naming the GPU and the rebuild command.
 * And the early start: the decision cached for a project kernel equals the
 * rule on its cudaFuncAttributes (binaryVersion and ptxVersion >= 90). */
#include <check.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "gpu/gpu_arch.h"
#include "gpu/gpu_arch_check.h"
#include "gpu/gpu_early.h"
#include "gpu/lt_unfused_kernels.h"
#include "tests/test_gpu.h"
#include "tests/test_util.h"

/* 1 when the build holds code for device 0 (the real probe). */
static int build_has_code(void) {
  struct cudaFuncAttributes attr;
  cudaError_t status = cudaFuncGetAttributes(&attr, gpu_arch_probe_kernel());
  cudaGetLastError();
  printf("build '%s': probe kernel %s (binaryVersion %d, ptxVersion %d)\n",
         gpu_arch_list(), cudaGetErrorName(status),
         status == cudaSuccess ? attr.binaryVersion : -1,
         status == cudaSuccess ? attr.ptxVersion : -1);
  return status == cudaSuccess;
}

START_TEST(train_checks_the_build_against_the_gpu) {
  struct cudaDeviceProp prop;
  ck_assert_int_eq(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  int has_code = build_has_code();
  char dir[4096], command[8192], out[8192] = "";
  ck_assert_int_eq(test_make_temp_dir(dir, sizeof dir), 0);
  ck_assert_int_eq(test_write_tiny_mnist(dir, 200, 100, 1), 0);
  snprintf(command, sizeof command,
           "'%s' --data-dir '%s' --epochs 1 --batch 50 2>&1", MNIST_TRAIN_PATH,
           dir);
  FILE *pipe = popen(command, "r");
  ck_assert_ptr_nonnull(pipe);
  size_t got = fread(out, 1, sizeof out - 1, pipe);
  out[got] = '\0';
  int status = pclose(pipe);
  test_remove_dir(dir);
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (has_code) {
    ck_assert_msg(code == 0, "exit %d: %s", code, out);
    ck_assert_msg(!strstr(out, "has no code"), "%s", out);
    return;
  }
  char cc[32], rebuild[96];
  snprintf(cc, sizeof cc, "compute capability %d.%d", prop.major, prop.minor);
  snprintf(rebuild, sizeof rebuild, "-DCMAKE_CUDA_ARCHITECTURES=%d%d-real",
           prop.major, prop.minor);
  ck_assert_msg(code != 0, "expected a refusal, found exit 0: %s", out);
  ck_assert_msg(strstr(out, prop.name) && strstr(out, cc) &&
                    strstr(out, rebuild) && strstr(out, gpu_arch_list()),
                "expected the GPU '%s', '%s', '%s' and the list in: %s",
                prop.name, cc, rebuild, out);
  /* refused before any training work: no epoch line, no launch failure */
  ck_assert_msg(!strstr(out, "epoch") && !strstr(out, "launch of"), "%s", out);
}
END_TEST

/* The rule on a kernel's attributes, as the cache must have decided. */
static int expected_early(const void *kernel) {
  struct cudaFuncAttributes attr;
  ck_assert_int_eq(cudaFuncGetAttributes(&attr, kernel), cudaSuccess);
  return attr.binaryVersion >= 90 && attr.ptxVersion >= 90;
}

START_TEST(early_start_is_decided_per_kernel) {
  if (!build_has_code()) {
    printf("no code for this GPU in this build: nothing launches\n");
    return;
  }
  gpu_early_cache cache = {0};
  /* a real project kernel, launched through the cache: bias add, m x n */
  enum { M = 8, N = 3 };
  float h_y[M * N] = {0}, h_bias[M] = {1, 2, 3, 4, 5, 6, 7, 8};
  float *d_y = test_upload(h_y, sizeof h_y);
  float *d_bias = test_upload(h_bias, sizeof h_bias);
  ck_assert_int_eq(lt_bias_act_forward(LT_DTYPE_F32, d_y, M, d_bias,
                                       LT_ACT_NONE, NULL, 0, M, N, &cache, 0),
                   0);
  test_download(h_y, d_y, sizeof h_y);
  ck_assert(h_y[M * (N - 1) + 7] == 8.0f); /* the launch ran */
  ck_assert_int_eq(cache.count, 1);
  ck_assert_int_eq(cache.early[0], expected_early(cache.kernels[0]));
  /* a second launch reads the cache: no new entry */
  ck_assert_int_eq(lt_bias_act_forward(LT_DTYPE_F32, d_y, M, d_bias,
                                       LT_ACT_NONE, NULL, 0, M, N, &cache, 0),
                   0);
  ck_assert_int_eq(cache.count, 1);
  /* the probe kernel: same rule */
  const void *probe = gpu_arch_probe_kernel();
  ck_assert_int_eq(gpu_early_lookup(&cache, probe), expected_early(probe));
  ck_assert_int_eq(cache.count, 2);
  ck_assert_int_eq(gpu_early_lookup(NULL, probe), 0);
  test_free(d_y);
  test_free(d_bias);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("gpu_arch_device");
  TCase *tc = tcase_create("device");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, train_checks_the_build_against_the_gpu);
  tcase_add_test(tc, early_start_is_decided_per_kernel);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) {
  test_require_gpu("gpu_arch_device");
  return test_run_suite(suite(), 1);
}
