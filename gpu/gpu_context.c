/* gpu_context.c: the GPU context: whether a device exists, creation,
 * destruction, and each lane's stream and workspace (gpu_context.h). */
#include "gpu/gpu_context.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu_apart.h"
#include "gpu/gpu_arch_check.h"
#include "gpu/gpu_check.h"

int gpu_device_available(char *why, size_t why_size) {
  if (!gpu_driver_usable(why, why_size)) return 0;
  int count = 0;
  cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    snprintf(why, why_size, "no usable CUDA device: %s (%s)",
             cudaGetErrorName(status), cudaGetErrorString(status));
    return 0;
  }
  if (count == 0) {
    snprintf(why, why_size, "no CUDA device found");
    return 0;
  }
  return 1;
}

/* The two lanes' streams: default priority, or under GPU_CHAIN_PRIORITIES
 * the main lane (the step's critical path) at the device's greatest
 * priority and the side lane at its least (numerically greater is lower:
 * cudaDeviceGetStreamPriorityRange). */
static int create_lanes(gpu_context *ctx) {
  int least = 0, greatest = 0;
  if (ctx->options.chain & GPU_CHAIN_PRIORITIES)
    CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  CUDA_CHECK(cudaStreamCreateWithPriority(&ctx->stream, cudaStreamNonBlocking,
                                          greatest));
  CUDA_CHECK(cudaStreamCreateWithPriority(&ctx->side_stream,
                                          cudaStreamNonBlocking, least));
  return 0;
}

static int context_init(gpu_context *ctx) {
  int count = 0;
  CUDA_CHECK(cudaGetDeviceCount(&count));
  if (ctx->options.device < 0 || ctx->options.device >= count) {
    fprintf(stderr, "gpu: expected a device number from 0 to %d, found %d\n",
            count - 1, ctx->options.device);
    return -1;
  }
  /* A context apart is current already, and its device checked: setting
   * the device would make the primary current. */
  if (!ctx->apart) {
    if (gpu_arch_check_device(ctx->options.device) != 0) return -1;
    CUDA_CHECK(cudaSetDevice(ctx->options.device));
  }
  struct cudaDeviceProp prop;
  CUDA_CHECK(cudaGetDeviceProperties(&prop, ctx->options.device));
  snprintf(ctx->device_name, sizeof ctx->device_name, "%s", prop.name);
  ctx->sm_count = prop.multiProcessorCount;
  if (create_lanes(ctx) != 0) return -1;
  CUDA_CHECK(cudaEventCreateWithFlags(&ctx->side_fork, cudaEventDisableTiming));
  ctx->early.trigger = (ctx->options.chain & GPU_CHAIN_TRIGGER) != 0;
  CUBLAS_CHECK(cublasLtCreate(&ctx->lt));
  CUDA_CHECK(cudaMalloc(&ctx->d_workspace, GPU_WORKSPACE_BYTES));
  CUDA_CHECK(cudaMalloc(&ctx->d_side_workspace, GPU_WORKSPACE_BYTES));
  CURAND_CHECK(
      curandCreateGenerator(&ctx->rng, CURAND_RNG_PSEUDO_PHILOX4_32_10));
  CURAND_CHECK(curandSetStream(ctx->rng, ctx->stream));
  return 0;
}

/* Both creations: on the primary context, or (apart) on one of its own
 * made first. Failures go to why[] ("" for the primary's set-up, which
 * says on stderr what failed, as it always has). */
static int context_new(gpu_context **out, const gpu_options *options, int apart,
                       char *why, size_t why_size) {
  *out = NULL;
  gpu_context *ctx = calloc(1, sizeof *ctx);
  if (!ctx) {
    snprintf(why, why_size, "out of host memory creating the context");
    return -1;
  }
  ctx->options = *options;
  if (apart &&
      gpu_apart_create(&ctx->apart, options->device, why, why_size) != 0) {
    free(ctx);
    return -1;
  }
  if (context_init(ctx) != 0) { /* it said what failed on stderr */
    snprintf(why, why_size, "%s",
             apart ? "setting up the context failed (see above)" : "");
    gpu_context_destroy(ctx);
    return -1;
  }
  *out = ctx;
  return 0;
}

int gpu_context_create(gpu_context **out, const gpu_options *options) {
  char why[300] = "";
  if (context_new(out, options, 0, why, sizeof why) == 0) return 0;
  if (why[0]) fprintf(stderr, "gpu: %s\n", why);
  return -1;
}

int gpu_context_create_apart(gpu_context **out, const gpu_options *options,
                             char *why, size_t why_size) {
  return context_new(out, options, 1, why, why_size);
}

void gpu_context_destroy(gpu_context *ctx) {
  if (!ctx) return;
  gpu_context_settle(ctx);
  if (ctx->side_stream) cudaStreamSynchronize(ctx->side_stream);
  if (ctx->stream) cudaStreamSynchronize(ctx->stream);
  if (ctx->plans_release) ctx->plans_release(ctx->plans);
  if (ctx->rng) curandDestroyGenerator(ctx->rng);
  if (ctx->side_fork) cudaEventDestroy(ctx->side_fork);
  cudaFree(ctx->d_side_workspace);
  cudaFree(ctx->d_workspace);
  if (ctx->lt) cublasLtDestroy(ctx->lt);
  if (ctx->side_stream) cudaStreamDestroy(ctx->side_stream);
  if (ctx->stream) cudaStreamDestroy(ctx->stream);
  gpu_apart_destroy(ctx->apart, ctx->options.device);
  free(ctx);
}

int gpu_context_sync(gpu_context *ctx) {
  CUDA_CHECK(cudaStreamSynchronize(ctx->side_stream));
  CUDA_CHECK(cudaStreamSynchronize(ctx->stream));
  return 0;
}

unsigned long long gpu_graph_flags(const gpu_context *ctx) {
  return (ctx->options.chain & GPU_CHAIN_PRIORITIES)
             ? (unsigned long long)cudaGraphInstantiateFlagUseNodePriority
             : 0ull;
}

cudaStream_t gpu_lane_stream(const gpu_context *ctx, int lane) {
  return lane == GPU_LANE_SIDE ? ctx->side_stream : ctx->stream;
}

void *gpu_lane_workspace(const gpu_context *ctx, int lane) {
  return lane == GPU_LANE_SIDE ? ctx->d_side_workspace : ctx->d_workspace;
}

int gpu_context_enter(gpu_context *apart, char *why, size_t why_size) {
  return gpu_apart_enter(apart->apart, why, why_size);
}

void gpu_context_leave(gpu_context *apart) {
  gpu_apart_leave(apart->apart, apart->options.device);
}

struct gpu_retiring {
  pthread_t thread;
  gpu_context *apart;
  int status; /* destroy_apart's */
};

/* Destroys `apart` (a context apart, current on no thread) here: made
 * current, destroyed, the primary current again; returns 0. One that
 * cannot be made current is destroyed by the driver alone, with
 * everything in it on the device (returns -1); the host side of its
 * streams, cuBLASLt handle and generator is then left behind (a few KB:
 * freeing them needs the context current). */
static int destroy_apart(gpu_context *apart) {
  if (!apart) return 0;
  char why[300];
  if (gpu_context_enter(apart, why, sizeof why) == 0) {
    gpu_context_destroy(apart);
    return 0;
  }
  fprintf(stderr, "gpu: note: %s; destroying it through the driver\n", why);
  if (apart->plans_release) apart->plans_release(apart->plans);
  gpu_apart_destroy(apart->apart, apart->options.device);
  free(apart);
  return -1;
}

/* The retiring thread: its device set first, so that no runtime call of
 * the thread starts device 0 on a run that uses another. */
static void *retire(void *arg) {
  struct gpu_retiring *r = arg;
  cudaSetDevice(r->apart->options.device);
  r->status = destroy_apart(r->apart);
  return NULL;
}

void gpu_context_retire(gpu_context *ctx, gpu_context *apart) {
  if (!apart) return;
  gpu_context_settle(ctx);
  struct gpu_retiring *r = malloc(sizeof *r);
  if (r) {
    r->apart = apart;
    r->status = 0;
    if (pthread_create(&r->thread, NULL, retire, r) == 0) {
      ctx->retiring = r;
      return;
    }
    free(r);
  }
  (void)destroy_apart(apart); /* a failure says so itself */
}

int gpu_context_settle(gpu_context *ctx) {
  if (!ctx || !ctx->retiring) return 0;
  pthread_join(ctx->retiring->thread, NULL);
  int status = ctx->retiring->status;
  free(ctx->retiring);
  ctx->retiring = NULL;
  return status;
}
