/* bench_timing.c: graph-replay timing for the benchmark (bench_timing.h). */
#include "bench/bench_timing.h"

#include <stdio.h>

#include "bench/bench_empty.h"
#include "gpu/gpu_check.h"
#include "gpu/gpu_graph.h"
#include "gpu/sample_stats.h"
#include "layers/fp8_cast.h"
#include "layers/linear.h"
#include "layers/sgd.h"

enum { REPLAYS = 9 };

/* What a timed graph holds: `count` launches of one enqueue function. */
typedef struct timed_work {
  int (*enqueue)(gpu_context *ctx, const struct timed_work *work);
  bench_op op;                /* for enqueue_op */
  const lt_matmul_call *call; /* for enqueue_op */
} timed_work;

static int enqueue_op(gpu_context *ctx, const timed_work *work) {
  return work->op(ctx, work->call);
}

static int enqueue_empty(gpu_context *ctx, const timed_work *work) {
  (void)work;
  return bench_empty_kernel(ctx->stream);
}

/* The timed graph's body: `count` launches of work->enqueue. */
typedef struct timed_capture {
  gpu_context *ctx;
  const timed_work *work;
  int count;
} timed_capture;

static int enqueue_timed(void *arg) {
  const timed_capture *c = arg;
  int status = 0;
  for (int i = 0; i < c->count && status == 0; i++)
    status = c->work->enqueue(c->ctx, c->work);
  return status;
}

static int capture_graph(gpu_context *ctx, const timed_work *work, int count,
                         cudaGraphExec_t *exec) {
  timed_capture capture = {ctx, work, count};
  if (gpu_graph_capture_exec(exec, ctx->stream, gpu_graph_flags(ctx),
                             enqueue_timed, &capture) != 0) {
    fprintf(stderr, "bench: capturing the timed work failed\n");
    return -1;
  }
  return 0;
}

/* Median of REPLAYS timed replays after one warm-up replay, in ms. */
static int replay(gpu_context *ctx, cudaGraphExec_t exec, cudaEvent_t *ev,
                  float *ms) {
  float samples[REPLAYS];
  CUDA_CHECK(cudaGraphLaunch(exec, ctx->stream));
  for (int r = 0; r < REPLAYS; r++) {
    CUDA_CHECK(cudaEventRecord(ev[0], ctx->stream));
    CUDA_CHECK(cudaGraphLaunch(exec, ctx->stream));
    CUDA_CHECK(cudaEventRecord(ev[1], ctx->stream));
    CUDA_CHECK(cudaEventSynchronize(ev[1]));
    CUDA_CHECK(cudaEventElapsedTime(&samples[r], ev[0], ev[1]));
  }
  sample_stats(samples, REPLAYS, ms, NULL, NULL);
  return 0;
}

/* Median microseconds per item of `count` items captured into a graph. */
static int time_graph(gpu_context *ctx, const timed_work *work, int count,
                      float *us) {
  cudaGraphExec_t exec = NULL;
  cudaEvent_t ev[2] = {NULL, NULL};
  float ms = 0.0f;
  int status = capture_graph(ctx, work, count, &exec);
  if (status == 0 && (cudaEventCreate(&ev[0]) != cudaSuccess ||
                      cudaEventCreate(&ev[1]) != cudaSuccess)) {
    fprintf(stderr, "bench: could not create timing events\n");
    status = -1;
  }
  if (status == 0) status = replay(ctx, exec, ev, &ms);
  if (ev[1]) cudaEventDestroy(ev[1]);
  if (ev[0]) cudaEventDestroy(ev[0]);
  if (exec) cudaGraphExecDestroy(exec);
  *us = ms * 1000.0f / count;
  return status;
}

int bench_time_op(gpu_context *ctx, bench_op op, const lt_matmul_call *call,
                  float *us) {
  if (op(ctx, call) != 0) return -1;
  timed_work work = {enqueue_op, op, call};
  return time_graph(ctx, &work, 20, us);
}

/* The FP8 rate: E4M3 A and B cast from the random FP32 operands with their
 * own scale (layers/fp8_cast.h), D in BF16, TN (the only FP8 layout), fast
 * accumulation (as the FP8 step's forward GEMMs). */
static int fp8_rate_call(gpu_context *ctx, const float *d, int size,
                         lt_matmul_call *call, void **d_fp8) {
  size_t count = (size_t)size * size;
  CUDA_CHECK(
      cudaMalloc(d_fp8, 2 * count + 2 * count * 2 + 2 * sizeof(fp8_meta)));
  uint8_t *q = *d_fp8;
  fp8_meta *meta = (fp8_meta *)(q + 2 * count + 2 * count * 2);
  CUDA_CHECK(cudaMemsetAsync(meta, 0, 2 * sizeof(fp8_meta), ctx->stream));
  for (int i = 0; i < 2; i++) {
    fp8_cast_args a = {.src_type = LT_DTYPE_F32,
                       .d_src = d + i * count,
                       .ld_src = size,
                       .rows = size,
                       .cols = size,
                       .d_out = q + i * count,
                       .ld_out = size,
                       .d_meta = meta + i,
                       .format = LT_FP8_E4M3};
    if (fp8_cast(&a, NULL, ctx->stream) != 0) return -1;
  }
  lt_matmul_call c = {
      .shape = linear_shape_forward_fp8(size, size, size, 0, LT_FP8_NONE),
      .d_a = q,
      .d_b = q + count,
      .d_d = q + 2 * count,
      .d_a_scale = &meta[0].scale_inv,
      .d_b_scale = &meta[1].scale_inv};
  c.shape.epilogue = LT_EPILOGUE_DEFAULT;
  c.shape.fast_accum = 1;
  *call = c;
  return 0;
}

int bench_matmul_rate(gpu_context *ctx, int size, double *tflops) {
  float *d = NULL;
  size_t count = (size_t)size * size;
  lt_dtype type = lt_precision_dtype(ctx->options.precision);
  int fp8 = ctx->options.precision == GPU_PRECISION_FP8;
  CUDA_CHECK(cudaMalloc((void **)&d, 3 * count * sizeof(float)));
  /* Random operands; for 16-bit, rounded copies of them; for FP8, cast. */
  void *d16 = NULL;
  int status = 0;
  if (curandGenerateNormal(ctx->rng, d, 3 * count, 0.0f, 1.0f) !=
      CURAND_STATUS_SUCCESS) {
    fprintf(stderr, "bench: could not fill the matmul operands\n");
    status = -1;
  }
  lt_matmul_call call;
  if (fp8) {
    if (status == 0) status = fp8_rate_call(ctx, d, size, &call, &d16);
  } else {
    if (type != LT_DTYPE_F32 &&
        cudaMalloc(&d16, 3 * count * lt_dtype_size(type)) != cudaSuccess) {
      fprintf(stderr, "bench: out of GPU memory for the 16-bit operands\n");
      d16 = NULL;
      status = -1;
    }
    if (d16) {
      sgd_slabs convert = {
          .d_params = d, .d_copy = d16, .type = type, .count = 3 * count};
      if (status == 0) status = sgd_write_copy(&convert, ctx->stream);
    }
    size_t size_bytes = lt_dtype_size(type);
    char *base = d16 ? (char *)d16 : (char *)d;
    lt_matmul_call plain = {.shape = {.type = type,
                                      .m = size,
                                      .n = size,
                                      .k = size,
                                      .lda = size,
                                      .ldb = size,
                                      .ldd = size,
                                      .epilogue = LT_EPILOGUE_DEFAULT},
                            .d_a = base,
                            .d_b = base + count * size_bytes,
                            .d_d = base + 2 * count * size_bytes};
    call = plain;
  }
  float us = 0;
  if (status == 0) status = bench_time_op(ctx, lt_matmul, &call, &us);
  cudaStreamSynchronize(ctx->stream);
  cudaFree(d16);
  cudaFree(d);
  if (status != 0) return -1;
  *tflops = 2.0 * size * (double)size * size / (us * 1e-6) / 1e12;
  return 0;
}

int bench_launch_cost(gpu_context *ctx, float *us) {
  timed_work work = {enqueue_empty, NULL, NULL};
  return time_graph(ctx, &work, 200, us);
}
