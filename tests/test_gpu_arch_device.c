/* test_gpu_arch_device.c: the architecture checks on a real GPU, asserting
 * what is right for the build at hand: in a build with code for the device
 * (sm_90 only, the default list, or "80" only, JIT-compiled on an H200)
 * mnist_train passes the check; in one without ("100" only on an H200) it
 * exits non-zero before training, naming the GPU and the rebuild command.
 * And the early start: the decision cached for a project kernel equals the
 * one derived from the architecture list and the GPU's capability alone
 * (expected_early), so a wrong rule on the attributes is caught. */
#include <check.h>
#include <ctype.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "gpu/gpu_arch.h"
#include "gpu/gpu_arch_check.h"
#include "gpu/gpu_early.h"
#include "lt/lt_unfused_kernels.h"
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

/* The early start a project kernel must get on a GPU of `capability`,
 * derived from the list the build holds (gpu_arch_list), not from the
 * kernel's attributes: the code the driver loads is the SASS for this GPU
 * (NN-real or plain NN of its major, minor <= the GPU's; "NNa" only on NN
 * itself), else the newest PTX it would JIT (NN-virtual or plain NN, NN <=
 * capability); early only when that NN >= 90. Measured on the H200 (CUDA
 * 13.0, driver 580): SASS sm_90 reports binaryVersion 90 / ptxVersion 90,
 * compute_80 PTX JIT-compiled 90 / 80. So an 80-only build: 0; a 90 build
 * or the default list: 1. A keyword list ("native", "all", "all-major")
 * holds SASS for this GPU: 1 from 9.0 on. */
static int expected_early(const char *list, int capability) {
  int sass = 0, ptx = 0; /* the NN the driver would load, 0: none */
  int keyword = 0;
  for (const char *p = list; *p;) {
    char *end = NULL;
    long nn = strtol(p, &end, 10);
    if (end == p) { /* a keyword, or a separator */
      keyword |= isalpha((unsigned char)*p);
      p += strcspn(p, "; ,") + (p[strcspn(p, "; ,")] ? 1 : 0);
      continue;
    }
    int exact = *end == 'a';
    if (*end == 'a' || *end == 'f') end++;
    int has_sass = strncmp(end, "-virtual", 8) != 0;
    int has_ptx = strncmp(end, "-real", 5) != 0;
    int runs_sass =
        exact ? nn == capability
              : nn / 10 == capability / 10 && nn % 10 <= capability % 10;
    if (has_sass && runs_sass && nn > sass) sass = (int)nn;
    if (has_ptx && nn <= capability && nn > ptx) ptx = (int)nn;
    p = end + strcspn(end, "; ,");
  }
  if (keyword) return capability >= 90;
  return (sass ? sass : ptx) >= 90;
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
  struct cudaDeviceProp prop;
  ck_assert_int_eq(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  int want = expected_early(gpu_arch_list(), prop.major * 10 + prop.minor);
  ck_assert_msg(cache.early[0] == want,
                "build '%s' on %d.%d: expected early start %d, found %d",
                gpu_arch_list(), prop.major, prop.minor, want, cache.early[0]);
  /* a second launch reads the cache: no new entry */
  ck_assert_int_eq(lt_bias_act_forward(LT_DTYPE_F32, d_y, M, d_bias,
                                       LT_ACT_NONE, NULL, 0, M, N, &cache, 0),
                   0);
  ck_assert_int_eq(cache.count, 1);
  /* the probe kernel: same rule */
  const void *probe = gpu_arch_probe_kernel();
  ck_assert_int_eq(gpu_early_lookup(&cache, probe), want);
  ck_assert_int_eq(cache.count, 2);
  ck_assert_int_eq(gpu_early_lookup(NULL, probe), 0);
  /* the blocks the GPU holds at once: asked once, kept in the same entry */
  int sms, per_sm, places = 0;
  ck_assert_int_eq(
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0),
      cudaSuccess);
  ck_assert_int_eq(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, probe, 128, 0),
      cudaSuccess);
  ck_assert_int_gt(per_sm, 0);
  ck_assert_int_eq(gpu_early_places(&cache, probe, 128, &places), 0);
  ck_assert_int_eq(places, sms * per_sm);
  ck_assert_int_eq(cache.count, 2);
  ck_assert_int_eq(cache.places[1], places);
  places = 0;
  ck_assert_int_eq(gpu_early_places(&cache, probe, 128, &places), 0);
  ck_assert_int_eq(places, sms * per_sm);
  places = 0;
  ck_assert_int_eq(gpu_early_places(NULL, probe, 128, &places), 0);
  ck_assert_int_eq(places, sms * per_sm);
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
