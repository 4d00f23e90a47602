/* test_gpu_retire.c: a context apart left and destroyed on a thread of its
 * own (gpu/gpu_context.h: gpu_context_leave, _retire, _settle), as the
 * step tuner's is (train/tune_apart.h), on a real GPU: after leaving it
 * the primary is current again and the context apart still holds its
 * memory; retired, it is destroyed while the caller works on the primary,
 * and once settled its memory is gone; a retiring context is waited for
 * by the next retire and by the primary's destruction; entering a left
 * context makes it current again. Memory is followed by its address
 * (cudaPointerGetAttributes), not by the device's free bytes, which other
 * processes (ctest -j) move. Skips (77) without a GPU. */
#include <check.h>
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>

#include "gpu/gpu_driver.h"
#include "tests/test_gpu.h"
#include "tests/test_util.h"

enum { BLOCK = 256 << 20 }; /* bytes a context apart holds in the test */

/* The context current on this thread (NULL: none). */
static CUcontext current(void) {
  PFN_cuCtxGetCurrent_v4000 get =
      (PFN_cuCtxGetCurrent_v4000)gpu_driver_function("cuCtxGetCurrent", 4000);
  ck_assert_ptr_nonnull(get);
  CUcontext c = NULL;
  ck_assert_int_eq(get(&c), CUDA_SUCCESS);
  return c;
}

/* Whether `p` is device memory of a live allocation (of any context). */
static int allocated(const void *p) {
  struct cudaPointerAttributes a;
  cudaError_t status = cudaPointerGetAttributes(&a, p);
  (void)cudaGetLastError(); /* an unknown address may set it */
  return status == cudaSuccess && a.type == cudaMemoryTypeDevice;
}

/* A context apart made current here, BLOCK bytes allocated and written in
 * it, then left: the primary (`primary_cu`) current again. */
static gpu_context *apart_holding_a_block(const gpu_context *primary,
                                          CUcontext primary_cu, void **block) {
  gpu_context *apart = NULL;
  char why[300] = "";
  ck_assert_msg(
      gpu_context_create_apart(&apart, &primary->options, why, sizeof why) == 0,
      "%s", why);
  ck_assert_ptr_eq(current(), (CUcontext)apart->apart);
  ck_assert_int_eq(cudaMalloc(block, BLOCK), cudaSuccess);
  ck_assert_int_eq(cudaMemsetAsync(*block, 1, BLOCK, apart->stream),
                   cudaSuccess);
  ck_assert_int_eq(cudaStreamSynchronize(apart->stream), cudaSuccess);
  gpu_context_leave(apart);
  ck_assert_ptr_eq(current(), primary_cu);
  return apart;
}

START_TEST(a_left_context_is_destroyed_on_its_own_thread) {
  gpu_context *primary = test_context(GPU_AUTOTUNE_EXACT, GPU_PRECISION_FP32);
  ck_assert_ptr_nonnull(primary);
  CUcontext primary_cu = current();
  void *block = NULL, *second = NULL, *third = NULL;
  gpu_context *apart = apart_holding_a_block(primary, primary_cu, &block);
  /* Left, it lives on: its block still allocated. */
  ck_assert(allocated(block));
  char why[300] = "";
  ck_assert_msg(gpu_context_enter(apart, why, sizeof why) == 0, "%s", why);
  ck_assert_ptr_eq(current(), (CUcontext)apart->apart);
  gpu_context_leave(apart);
  ck_assert_ptr_eq(current(), primary_cu);
  /* Retired: destroyed on a thread of its own while the primary works
   * (its memory allocated before, so no address of the block is reused:
   * the driver alone destroying the context would fail settle). */
  void *mine = test_upload(NULL, 4096);
  gpu_context_retire(primary, apart);
  ck_assert_ptr_nonnull(primary->retiring);
  test_fill_device(mine, 0, 4096);
  ck_assert_int_eq(gpu_context_settle(primary), 0);
  ck_assert_ptr_null(primary->retiring);
  ck_assert_ptr_eq(current(), primary_cu);
  ck_assert(!allocated(block));
  ck_assert(allocated(mine));
  /* A second retire waits for the first; the primary's destruction waits
   * for the second: afterwards neither block is allocated (both made
   * while the other lived, so their addresses differ). */
  gpu_context *a2 = apart_holding_a_block(primary, primary_cu, &second);
  gpu_context *a3 = apart_holding_a_block(primary, primary_cu, &third);
  gpu_context_retire(primary, a2);
  gpu_context_retire(primary, a3);
  ck_assert(!allocated(second));
  ck_assert_int_eq(gpu_context_settle(NULL), 0);
  ck_assert_ptr_nonnull(primary->retiring);
  test_free(mine);
  ck_assert_int_eq(cudaGetLastError(), cudaSuccess);
  gpu_context_destroy(primary);
  ck_assert_ptr_eq(current(), primary_cu);
  ck_assert(!allocated(third));
}
END_TEST

int main(void) {
  test_require_gpu("gpu_retire");
  Suite *s = suite_create("gpu_retire");
  TCase *tc = tcase_create("retire");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, a_left_context_is_destroyed_on_its_own_thread);
  suite_add_tcase(s, tc);
  return test_run_suite(s, 1);
}
