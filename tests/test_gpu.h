/* test_gpu.h: helpers for the GPU suites: skip without a GPU, copies
 * between host and device that fail the test on any CUDA error. Every
 * helper that writes device memory synchronises the whole device before it
 * returns: the copies and fills run on the legacy stream, which the
 * contexts' non-blocking streams do not wait for, so without the sync
 * nothing would order a fill before the work that reads it. */
#ifndef MNIST_EPILOGS_TEST_GPU_H
#define MNIST_EPILOGS_TEST_GPU_H

#include <stddef.h>

#include "gpu/gpu_context.h"

/* Exits 77 with the reason when no usable CUDA device exists. */
void test_require_gpu(const char *suite);
/* test_require_gpu, then exits 77 too when device 0 has no FP8 tensor
 * cores (compute capability below 8.9). */
void test_require_fp8(const char *suite);

/* cudaMalloc of `bytes` (at least 1), filled from `host` unless NULL;
 * complete on return. */
void *test_upload(const void *host, size_t bytes);
/* Copies host bytes into existing device memory, complete on return. */
void test_copy_to_device(void *device, const void *host, size_t bytes);
/* Waits for the whole device, then copies to the host. */
void test_download(void *host, const void *device, size_t bytes);
/* cudaMemset, complete on return. */
void test_fill_device(void *device, int byte, size_t bytes);
void test_free(void *device);
void test_sync(gpu_context *ctx);

/* Captures enqueue(arg) on ctx->stream into a graph (gpu_graph_flags),
 * replays it `replays` times and waits: the test fails on any error. */
void test_graph_replay(gpu_context *ctx, int (*enqueue)(void *), void *arg,
                       int replays);

/* A context with the given autotune mode and precision on device 0;
 * NULL on error (callers assert: this may run outside a test). */
gpu_context *test_context(gpu_autotune autotune, gpu_precision precision);

#endif
