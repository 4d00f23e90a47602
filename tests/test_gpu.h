/* test_gpu.h: helpers for the GPU suites: skip without a GPU, copies
 * between host and device that fail the test on any CUDA error. */
#ifndef MNIST_EPILOGS_TEST_GPU_H
#define MNIST_EPILOGS_TEST_GPU_H

#include <stddef.h>

#include "gpu/gpu_context.h"

/* Exits 77 with the reason when no usable CUDA device exists. */
void test_require_gpu(const char *suite);

/* cudaMalloc + copy of `bytes` from host (or NaN-poison when host is NULL
 * for floats, 0xA5 bytes for masks: see the callers). */
void *test_upload(const void *host, size_t bytes);
void test_download(void *host, const void *device, size_t bytes);
void test_fill_device(void *device, int byte, size_t bytes);
void test_free(void *device);
void test_sync(gpu_context *ctx);

/* A context with the given autotune mode and tf32 switch; NULL on error
 * (callers assert: this may run outside a test). */
gpu_context *test_context(gpu_autotune autotune, int tf32,
                          unsigned long long seed);

#endif
