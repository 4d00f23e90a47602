/* test_gpu_errors.c: the runtime's last-error slot after the project's own
 * failed CUDA queries, on a real GPU: the early-start cache
 * (gpu/gpu_early.h) caches a failed cudaFuncGetAttributes (no second
 * query) and clears only the error it made, never one pending before it;
 * a graph capture whose enqueue fails (gpu/gpu_graph.h) leaves no error of
 * its failed end of capture behind; --trace-step's runtime name query
 * (bench/bench_trace.h) clears its own failure and leaves an error pending
 * before it exactly as it was; a failed occupancy query (gpu_early_places)
 * is not cached. Skips (77) without a GPU. */
#include <check.h>
#include <cuda_runtime_api.h>

#include "bench/bench_kernel_names.h"
#include "gpu/gpu_early.h"
#include "gpu/gpu_graph.h"
#include "tests/test_gpu.h"
#include "tests/test_util.h"

/* Host addresses that are no kernel: cudaFuncGetAttributes fails on them
 * (cudaErrorInvalidDeviceFunction). */
static const char not_kernels[2] = {0, 0};

/* Leaves cudaErrorMemoryAllocation pending (not sticky). */
static void make_pending_error(void) {
  void *p = NULL;
  ck_assert_int_eq(cudaMalloc(&p, (size_t)1 << 60), cudaErrorMemoryAllocation);
  ck_assert_int_eq(cudaPeekAtLastError(), cudaErrorMemoryAllocation);
}

START_TEST(failed_query_is_cached_and_clears_only_its_own_error) {
  cudaGetLastError(); /* a clean slot to start from */
  gpu_early_cache cache = {0};
  /* No error pending: the query's own error is cleared, the 0 cached. */
  ck_assert_int_eq(gpu_early_lookup(&cache, &not_kernels[0]), 0);
  ck_assert_int_eq(cache.count, 1);
  ck_assert_int_eq(cudaPeekAtLastError(), cudaSuccess);
  /* Cached: no second query, so a pending error is untouched (a second
   * query used to clear it). */
  make_pending_error();
  ck_assert_int_eq(gpu_early_lookup(&cache, &not_kernels[0]), 0);
  ck_assert_int_eq(cache.count, 1);
  ck_assert_int_eq(cudaGetLastError(), cudaErrorMemoryAllocation);
  /* A new failing query with an error pending: something stays pending for
   * the earlier call's check (it used to be cleared). */
  make_pending_error();
  ck_assert_int_eq(gpu_early_lookup(&cache, &not_kernels[1]), 0);
  ck_assert_int_eq(cache.count, 2);
  ck_assert_int_ne(cudaGetLastError(), cudaSuccess);
  ck_assert_int_eq(cudaGetLastError(), cudaSuccess);
}
END_TEST

/* A failed occupancy query returns its error and caches nothing: the
 * next call asks again. */
START_TEST(failed_places_query_is_not_cached) {
  cudaGetLastError();
  gpu_early_cache cache = {0};
  int places = -1;
  ck_assert_int_ne(gpu_early_places(&cache, &not_kernels[0], 128, &places),
                   cudaSuccess);
  ck_assert_int_eq(places, -1);
  ck_assert_int_eq(cache.count, 1);
  ck_assert_int_eq(cache.places[0], 0);
  ck_assert_int_ne(gpu_early_places(&cache, &not_kernels[0], 128, &places),
                   cudaSuccess);
  ck_assert_int_eq(cache.count, 1);
  cudaGetLastError();
}
END_TEST

/* Invalidates the capture of `arg` (a stream) by synchronising it, reports
 * (clears) that error, as an enqueue's own check does, and fails. */
static int enqueue_failing(void *arg) {
  cudaStream_t stream = (cudaStream_t)arg;
  if (cudaStreamSynchronize(stream) == cudaSuccess) return 0;
  cudaGetLastError();
  return -1;
}

START_TEST(failed_capture_leaves_no_error) {
  cudaStream_t stream = NULL;
  ck_assert_int_eq(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking),
                   cudaSuccess);
  cudaGetLastError(); /* a clean slot to start from */
  cudaGraph_t graph = NULL;
  ck_assert_int_eq(
      gpu_graph_capture(&graph, stream, enqueue_failing, (void *)stream), -1);
  ck_assert_ptr_null(graph);
  /* cudaStreamEndCapture failed (cudaErrorStreamCaptureInvalidated); its
   * error used to stay in the slot for the next unrelated check. */
  ck_assert_int_eq(cudaPeekAtLastError(), cudaSuccess);
  enum cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusActive;
  ck_assert_int_eq(cudaStreamIsCapturing(stream, &capturing), cudaSuccess);
  ck_assert_int_eq(capturing, cudaStreamCaptureStatusNone);
  ck_assert_int_eq(cudaStreamDestroy(stream), cudaSuccess);
}
END_TEST

START_TEST(trace_name_query_keeps_a_pending_error) {
  cudaGraph_t graph = NULL;
  cudaGraphNode_t node = NULL;
  ck_assert_int_eq(cudaGraphCreate(&graph, 0), cudaSuccess);
  /* not a kernel node: cudaGraphKernelNodeGetParams fails on it */
  ck_assert_int_eq(cudaGraphAddEmptyNode(&node, graph, NULL, 0), cudaSuccess);
  cudaGetLastError(); /* a clean slot to start from */
  /* No error pending: the query's own failure is cleared. */
  ck_assert_ptr_null(bench_kernel_runtime_name(node));
  ck_assert_int_eq(cudaPeekAtLastError(), cudaSuccess);
  /* An earlier call's error is left pending, the same error (the query
   * used to clear it whatever it was). */
  make_pending_error();
  ck_assert_ptr_null(bench_kernel_runtime_name(node));
  ck_assert_int_eq(cudaGetLastError(), cudaErrorMemoryAllocation);
  ck_assert_int_eq(cudaGetLastError(), cudaSuccess);
  ck_assert_int_eq(cudaGraphDestroy(graph), cudaSuccess);
}
END_TEST

int main(void) {
  test_require_gpu("gpu_errors");
  Suite *s = suite_create("gpu_errors");
  TCase *tc = tcase_create("errors");
  tcase_add_test(tc, failed_query_is_cached_and_clears_only_its_own_error);
  tcase_add_test(tc, failed_places_query_is_not_cached);
  tcase_add_test(tc, failed_capture_leaves_no_error);
  tcase_add_test(tc, trace_name_query_keeps_a_pending_error);
  suite_add_tcase(s, tc);
  return test_run_suite(s, 1);
}
