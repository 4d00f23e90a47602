/* test_mlp_oom.c: a network too big for the GPU is refused by mlp_create
 * before any allocation, with the user's message (both sizes, what to
 * reduce), and leaves the GPU usable. The sizes themselves:
 * test_mlp_memory.c (CPU). GPU only: skips (77) without one. */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "layers/mlp.h"
#include "layers/mlp_memory.h"
#include "tests/test_gpu.h"
#include "tests/test_util.h"

/* 784-65536-65536-65536-10 at batch 65536 (FP32, training: ~207 GB,
 * test_mlp_memory.c; more than an H200's 141 GB) is refused by mlp_create
 * with the user's message (sizes in GiB, --batch, --hidden), not a failed
 * cudaMalloc; nothing is left broken: no sticky CUDA error, and a small
 * network is created afterwards. */
START_TEST(too_big_for_the_gpu_is_refused) {
  const int widths[] = {784, 65536, 65536, 65536, 10};
  enum { DEPTH = 4, BATCH = 65536 };
  mlp_layout layout;
  char err[128];
  ck_assert_int_eq(mlp_layout_init(&layout, widths, DEPTH, err, sizeof err), 0);
  mlp_memory need;
  ck_assert_int_eq(mlp_memory_need(&need, &layout, BATCH, LT_DTYPE_F32,
                                   LT_ACTIVATION_RELU, 0, 0),
                   0);
  size_t free_bytes = 0, total_bytes = 0;
  ck_assert_int_eq(cudaMemGetInfo(&free_bytes, &total_bytes), cudaSuccess);
  ck_assert_msg(need.total > total_bytes,
                "this GPU has %zu bytes: the network (%zu) fits, the test "
                "needs a bigger one",
                total_bytes, need.total);
  FILE *captured = tmpfile();
  ck_assert_ptr_nonnull(captured);
  fflush(stderr);
  int saved = dup(2);
  ck_assert_int_ge(saved, 0);
  ck_assert_int_ge(dup2(fileno(captured), 2), 0);
  mlp *net = (mlp *)1;
  int rc = mlp_create(&net, widths, DEPTH, BATCH, NULL);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  char text[1024] = {0};
  rewind(captured);
  size_t got = fread(text, 1, sizeof text - 1, captured);
  fclose(captured);
  printf("mlp_create said (%zu bytes): %s", got, text);
  ck_assert_int_eq(rc, -1);
  ck_assert_ptr_null(net);
  const char *wanted[] = {"not enough GPU memory", "GiB free of", "--batch",
                          "--hidden"};
  for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++)
    ck_assert_msg(strstr(text, wanted[i]) != NULL, "'%s' not in '%s'",
                  wanted[i], text);
  ck_assert_msg(strstr(text, "cudaMalloc") == NULL, "%s", text);
  ck_assert_int_eq(cudaGetLastError(), cudaSuccess);
  const int small[] = {784, 100, 10};
  ck_assert_int_eq(mlp_create(&net, small, 2, 256, NULL), 0);
  mlp_destroy(net);
}
END_TEST

int main(void) {
  test_require_gpu("mlp_oom");
  Suite *suite = suite_create("mlp_oom");
  TCase *tc = tcase_create("mlp_oom");
  tcase_add_test(tc, too_big_for_the_gpu_is_refused);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 1);
}
