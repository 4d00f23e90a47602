/* gpu_context.h: everything a GPU computation needs, in one struct passed
 * explicitly (no globals): the device, two streams ("lanes") each with its
 * own cuBLASLt workspace, the cuBLASLt handle, a slot for the wrapper's
 * plan cache (lt/, which links this folder: the runtime holds the cache
 * without knowing it) and its last error, a cuRAND generator, and `early`:
 * which of the project's
 * kernels may start early on this device (gpu_early.h), decided per kernel
 * at its first launch. options.chain (gpu_options.h) sets the lanes'
 * priorities and the early-start trigger here, once, at creation.
 */
#ifndef MNIST_EPILOGS_GPU_CONTEXT_H
#define MNIST_EPILOGS_GPU_CONTEXT_H

#include <cublasLt.h>
#include <cuda_runtime_api.h>
#include <curand.h>
#include <stddef.h>

#include "gpu/gpu_early.h"
#include "gpu/gpu_options.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 32 MiB, as NVIDIA recommends for Hopper; given to both the heuristic
 * preference and every matmul. */
#define GPU_WORKSPACE_BYTES ((size_t)32 << 20)

/* Work runs on two streams; each has its own cuBLASLt workspace, so
 * concurrent matmuls never share one. */
enum { GPU_LANE_MAIN = 0, GPU_LANE_SIDE = 1, GPU_LANES = 2 };

typedef struct gpu_context {
  gpu_options options;
  char device_name[256];
  int sm_count;
  cudaStream_t stream;      /* lane 0: everything unless said otherwise */
  cudaStream_t side_stream; /* lane 1: work that may overlap lane 0 */
  cublasLtHandle_t lt;
  void *d_workspace;           /* lane 0's, GPU_WORKSPACE_BYTES, 256-aligned */
  void *d_side_workspace;      /* lane 1's */
  curandGenerator_t rng;       /* Philox, on `stream`; whoever draws seeds it */
  struct lt_plan_cache *plans; /* the wrapper's (lt/lt_plan_cache.h): made
                                 by its first plan, NULL until then */
  void (*plans_release)(struct lt_plan_cache *plans); /* set with `plans`;
                                 gpu_context_destroy calls it */
  char last_error[512];  /* the wrapper's last refusal (lt_last_error) */
  gpu_early_cache early; /* which kernels may start early (gpu_launch) */
  cudaEvent_t side_fork; /* GPU_CHAIN_SIDE_PARTIALS: recorded on the main
                            lane where the side lane takes over
                            (lt/lt_unfused.c), no timing */
  void *apart;           /* gpu_context_create_apart: its own CUDA context (a
                            CUcontext), destroyed with it; NULL: the primary */
  struct gpu_retiring *retiring; /* a context apart being destroyed on a
                                    thread of its own (gpu_context_retire) */
} gpu_context;

/* Returns 1 when a usable CUDA device exists, else 0 with `why` filled. */
int gpu_device_available(char *why, size_t why_size);

/* Creates a context on options->device, after checking that this build
 * can run there (gpu_arch_check.h: driver, a kernel image for the GPU).
 * Returns 0, or -1 with a message on stderr and *out NULL. */
int gpu_context_create(gpu_context **out, const gpu_options *options);

/* Like gpu_context_create, on a CUDA context of its own (gpu/gpu_apart.h)
 * instead of the device's primary: current on this thread until
 * gpu_context_destroy, which destroys it with everything loaded in it and
 * makes the primary current again. The device must already be checked
 * (a gpu_context_create on it succeeded). Returns 0, or -1 with why[]
 * saying why (a failing CUDA call in the set-up also prints itself). */
int gpu_context_create_apart(gpu_context **out, const gpu_options *options,
                             char *why, size_t why_size);

/* Destroys in reverse order of creation (after waiting for a retiring
 * context); a no-op on NULL. */
void gpu_context_destroy(gpu_context *ctx);

/* Makes a context apart that is current on no thread current on this
 * one. Returns 0, or -1 with why[] saying why. */
int gpu_context_enter(gpu_context *apart, char *why, size_t why_size);
/* Leaves a context apart current on this thread: the primary is current
 * again; the context lives on (for gpu_context_retire). */
void gpu_context_leave(gpu_context *apart);

/* Destroys `apart` (a context apart, current on no thread: left) on a
 * thread of its own, so that the caller goes on meanwhile (on the H200 the
 * step tuner's took ~0.1 s of a first run's wall clock); waits first for
 * one retiring already; destroys it here when no thread starts. A no-op
 * on NULL. gpu_context_settle(ctx) waits for it: call it before timed
 * work, and never let the destruction overlap the set-up of what is timed
 * (a context apart that was alive while a run allocated its buffers made
 * that run's step 5 % slower on the H200: docs/performance.md). */
void gpu_context_retire(gpu_context *ctx, gpu_context *apart);
/* Waits for ctx's retiring context (none, or NULL ctx: returns at once).
 * Returns 0, or -1 when that context could not be made current again and
 * the driver alone destroyed it (said on stderr). */
int gpu_context_settle(gpu_context *ctx);

/* Waits for all work on both lanes. Returns 0 or -1. */
int gpu_context_sync(gpu_context *ctx);

/* The flags the context's graphs are instantiated with
 * (gpu/gpu_graph.h): cudaGraphInstantiateFlagUseNodePriority under
 * GPU_CHAIN_PRIORITIES (the lanes' stream priorities, captured into the
 * kernel nodes, then count), else 0. */
unsigned long long gpu_graph_flags(const gpu_context *ctx);

/* The stream and workspace of a lane. */
cudaStream_t gpu_lane_stream(const gpu_context *ctx, int lane);
void *gpu_lane_workspace(const gpu_context *ctx, int lane);

#ifdef __cplusplus
}
#endif

#endif
