/* test_gpu.c: see test_gpu.h. */
#include "tests/test_gpu.h"

#include <check.h>
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpu/gpu_graph.h"
#include "tests/test_util.h"

void test_require_gpu(const char *suite) {
  char why[256];
  if (!gpu_device_available(why, sizeof why)) {
    printf("SKIP %s: %s\n", suite, why);
    exit(TEST_SKIP);
  }
}

void test_require_fp8(const char *suite) {
  test_require_gpu(suite);
  int device = 0;
  struct cudaDeviceProp prop;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaGetDeviceProperties(&prop, device) != cudaSuccess ||
      prop.major * 10 + prop.minor < 89) {
    cudaGetLastError();
    printf("SKIP %s: no GPU with FP8 tensor cores (compute capability 8.9 "
           "or newer)\n",
           suite);
    exit(TEST_SKIP);
  }
}

#define TEST_CUDA(call)                                                        \
  do {                                                                         \
    cudaError_t status_ = (call);                                              \
    ck_assert_msg(status_ == cudaSuccess, "%s: %s", #call,                     \
                  cudaGetErrorString(status_));                                \
  } while (0)

void *test_upload(const void *host, size_t bytes) {
  void *device = NULL;
  TEST_CUDA(cudaMalloc(&device, bytes ? bytes : 1));
  if (host && bytes)
    TEST_CUDA(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice));
  TEST_CUDA(cudaDeviceSynchronize());
  return device;
}

void test_copy_to_device(void *device, const void *host, size_t bytes) {
  TEST_CUDA(cudaDeviceSynchronize());
  TEST_CUDA(cudaMemcpy(device, host, bytes, cudaMemcpyHostToDevice));
  TEST_CUDA(cudaDeviceSynchronize());
}

void test_download(void *host, const void *device, size_t bytes) {
  TEST_CUDA(cudaDeviceSynchronize());
  TEST_CUDA(cudaMemcpy(host, device, bytes, cudaMemcpyDeviceToHost));
}

void test_fill_device(void *device, int byte, size_t bytes) {
  TEST_CUDA(cudaDeviceSynchronize());
  TEST_CUDA(cudaMemset(device, byte, bytes));
  TEST_CUDA(cudaDeviceSynchronize());
}

void test_free(void *device) {
  TEST_CUDA(cudaDeviceSynchronize());
  TEST_CUDA(cudaFree(device));
}

void test_sync(gpu_context *ctx) {
  TEST_CUDA(gpu_context_sync(ctx) == 0 ? cudaSuccess : cudaErrorUnknown);
}

gpu_context *test_context(gpu_autotune autotune, gpu_precision precision) {
  gpu_options options = gpu_options_defaults();
  options.autotune = autotune;
  options.precision = precision;
  gpu_context *ctx = NULL;
  if (gpu_context_create(&ctx, &options) != 0) return NULL;
  return ctx;
}

void test_graph_replay(gpu_context *ctx, int (*enqueue)(void *), void *arg,
                       int replays) {
  cudaGraphExec_t exec = NULL;
  ck_assert_int_eq(gpu_graph_capture_exec(&exec, ctx->stream,
                                          gpu_graph_flags(ctx), enqueue, arg),
                   0);
  for (int replay = 0; replay < replays; replay++)
    ck_assert_int_eq(cudaGraphLaunch(exec, ctx->stream), cudaSuccess);
  test_sync(ctx);
  cudaGraphExecDestroy(exec);
}
