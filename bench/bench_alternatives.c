/* bench_alternatives.c: mnist_bench --alternatives (bench_alternatives.h). */
#include "bench/bench_alternatives.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bench/bench_kernel_names.h"
#include "bench/bench_timing.h"
#include "gpu/gpu_check.h"
#include "gpu/gpu_graph.h"
#include "layers/sgd.h"
#include "lt/lt_split.h"
#include "lt/lt_unfused.h"

/* The largest m, n, k: every buffer holds ALT_MAX x ALT_MAX elements. */
enum { ALT_MAX = 4096, ALT_SHAPES = 2 };

typedef enum alt_way { ALT_FUSED, ALT_UNFUSED, ALT_SPLIT } alt_way;
typedef enum alt_call_kind {
  ALT_DATA,    /* dX (m, n) = Wt (m, k) dZ (k, n): lt_shape_backward_data */
  ALT_WEIGHTS, /* dWt (m, n) = X (m, k) dZ^T: lt_shape_backward_weights */
  ALT_SWAPPED  /* the weights call's (m, n, k) as dW (n, m) = dZ (n, k) X^T:
                  A and B swapped */
} alt_call_kind;

typedef struct alt_row {
  alt_call_kind kind;
  lt_epilogue epilogue; /* DEFAULT first in each kind: the ratios' base */
  alt_way way;
  int activation; /* the lt_activation it belongs to, or -1: any */
} alt_row;

static const alt_row data_rows[] = {
    {ALT_DATA, LT_EPILOGUE_DEFAULT, ALT_FUSED, -1},
    {ALT_DATA, LT_EPILOGUE_DRELU, ALT_FUSED, LT_ACTIVATION_RELU},
    {ALT_DATA, LT_EPILOGUE_DRELU_BGRAD, ALT_FUSED, LT_ACTIVATION_RELU},
    {ALT_DATA, LT_EPILOGUE_DRELU_BGRAD, ALT_SPLIT, LT_ACTIVATION_RELU},
    {ALT_DATA, LT_EPILOGUE_DRELU_BGRAD, ALT_UNFUSED, LT_ACTIVATION_RELU},
    {ALT_DATA, LT_EPILOGUE_DGELU, ALT_FUSED, LT_ACTIVATION_GELU},
    {ALT_DATA, LT_EPILOGUE_DGELU_BGRAD, ALT_FUSED, LT_ACTIVATION_GELU},
    {ALT_DATA, LT_EPILOGUE_DGELU_BGRAD, ALT_SPLIT, LT_ACTIVATION_GELU},
    {ALT_DATA, LT_EPILOGUE_DGELU_BGRAD, ALT_UNFUSED, LT_ACTIVATION_GELU},
};
static const alt_row weight_rows[] = {
    {ALT_WEIGHTS, LT_EPILOGUE_DEFAULT, ALT_FUSED, -1},
    {ALT_WEIGHTS, LT_EPILOGUE_BGRADB, ALT_FUSED, -1},
    {ALT_WEIGHTS, LT_EPILOGUE_BGRADB, ALT_UNFUSED, -1},
    {ALT_SWAPPED, LT_EPILOGUE_BGRADA, ALT_FUSED, -1},
    {ALT_SWAPPED, LT_EPILOGUE_BGRADA, ALT_UNFUSED, -1},
};
/* (m, n, k) of issue 21: the data call's and the weight call's. */
static const int data_shapes[ALT_SHAPES][3] = {{1024, 256, 1024},
                                               {4096, 4096, 4096}};
static const int weight_shapes[ALT_SHAPES][3] = {{1024, 1024, 256},
                                                 {4096, 4096, 4096}};

/* Random operands in the storage type, each ALT_MAX x ALT_MAX. */
typedef struct alt_buffers {
  float *d_random;   /* 3 slices of normal FP32 values: A, B, GELU input */
  void *d_typed;     /* 16-bit copies of them (NULL in FP32) */
  void *d_d;         /* D */
  uint8_t *d_mask;   /* a random ReLU mask, lt_aux_bytes(ALT_MAX, ALT_MAX) */
  void *d_bias_grad; /* [ALT_MAX] */
  lt_dtype type;
} alt_buffers;

/* Elements of each buffer. */
#define ALT_COUNT ((size_t)ALT_MAX * ALT_MAX)

/* Slice i of the operands (0: A, 1: B, 2: the GELU input). */
static void *alt_slice(const alt_buffers *b, int i) {
  char *base = b->d_typed ? (char *)b->d_typed : (char *)b->d_random;
  return base + (size_t)i * ALT_COUNT * lt_dtype_size(b->type);
}

static void alt_free(alt_buffers *b) {
  cudaFree(b->d_bias_grad);
  cudaFree(b->d_mask);
  cudaFree(b->d_d);
  cudaFree(b->d_typed);
  cudaFree(b->d_random);
}

static int alt_alloc(alt_buffers *b, gpu_context *ctx) {
  memset(b, 0, sizeof *b);
  b->type = lt_precision_dtype(ctx->options.precision);
  size_t size = lt_dtype_size(b->type);
  CUDA_CHECK(cudaMalloc((void **)&b->d_random, 3 * ALT_COUNT * sizeof(float)));
  if (b->type != LT_DTYPE_F32)
    CUDA_CHECK(cudaMalloc(&b->d_typed, 3 * ALT_COUNT * size));
  CUDA_CHECK(cudaMalloc(&b->d_d, ALT_COUNT * size));
  CUDA_CHECK(cudaMalloc((void **)&b->d_mask, lt_aux_bytes(ALT_MAX, ALT_MAX)));
  CUDA_CHECK(cudaMalloc(&b->d_bias_grad, ALT_MAX * size));
  if (curandGenerateNormal(ctx->rng, b->d_random, 3 * ALT_COUNT, 0.0f, 1.0f) !=
          CURAND_STATUS_SUCCESS ||
      curandGenerate(ctx->rng, (unsigned *)b->d_mask,
                     lt_aux_bytes(ALT_MAX, ALT_MAX) / 4) !=
          CURAND_STATUS_SUCCESS) {
    fprintf(stderr, "mnist_bench: could not fill the operands\n");
    return -1;
  }
  sgd_slabs convert = {.d_params = b->d_random,
                       .d_copy = b->d_typed,
                       .type = b->type,
                       .count = 3 * ALT_COUNT};
  if (b->d_typed && sgd_write_copy(&convert, ctx->stream) != 0) return -1;
  CUDA_CHECK(cudaStreamSynchronize(ctx->stream));
  return 0;
}

/* The row's call at (m, n, k), on the buffers, with exactly the vectors its
 * epilogue uses. */
static lt_matmul_call alt_call(const alt_buffers *b, const alt_row *row, int m,
                               int n, int k) {
  lt_shape s;
  if (row->kind == ALT_DATA) {
    int gelu = row->epilogue == LT_EPILOGUE_DGELU ||
               row->epilogue == LT_EPILOGUE_DGELU_BGRAD;
    s = lt_shape_backward_data(m, k, n);
    s = lt_shape_activation(s, gelu ? LT_ACTIVATION_GELU : LT_ACTIVATION_RELU);
    if (lt_epilogue_is_alternative(row->epilogue)) s = lt_shape_split(s);
  } else {
    /* ALT_SWAPPED: the same layer (in = m, out = n) with m' = out, n' =
     * in: A = dZ stored (out, k), B = X stored (in, k) transposed; transa
     * = N, as BGRADA needs. */
    s = row->kind == ALT_WEIGHTS ? lt_shape_backward_weights(m, n, k, 1)
                                 : lt_shape_backward_weights(n, m, k, 1);
    s.epilogue = row->epilogue;
  }
  s.type = b->type;
  lt_matmul_call call = {.shape = s,
                         .d_a = alt_slice(b, row->kind == ALT_SWAPPED),
                         .d_b = alt_slice(b, row->kind != ALT_SWAPPED),
                         .d_d = b->d_d};
  if (row->epilogue == LT_EPILOGUE_DEFAULT) return lt_call_plain(&call);
  if (lt_epilogue_writes_bias_grad(s.epilogue))
    call.d_bias_grad = b->d_bias_grad;
  if (lt_epilogue_uses_aux(s.epilogue))
    call.d_aux =
        lt_epilogue_aux_is_mask(s.epilogue) ? b->d_mask : alt_slice(b, 2);
  return call;
}

static bench_op alt_op(alt_way way) {
  return way == ALT_SPLIT     ? lt_matmul_split
         : way == ALT_UNFUSED ? lt_matmul_unfused
                              : lt_matmul;
}

/* One call of a row, for the capture that names its kernels. */
typedef struct alt_capture {
  gpu_context *ctx;
  bench_op op;
  const lt_matmul_call *call;
} alt_capture;

static int enqueue_once(void *arg) {
  const alt_capture *c = arg;
  return c->op(c->ctx, c->call);
}

/* The kernels one call runs, named into out. */
static int call_kernels(char *out, size_t size, gpu_context *ctx, bench_op op,
                        const lt_matmul_call *call) {
  alt_capture capture = {ctx, op, call};
  cudaGraph_t graph = NULL;
  if (gpu_graph_capture(&graph, ctx->stream, enqueue_once, &capture) != 0)
    return -1;
  int kernels = bench_graph_kernels(out, size, graph);
  cudaGraphDestroy(graph);
  return kernels < 0 ? -1 : 0;
}

static const char *kind_name(alt_call_kind kind) {
  return kind == ALT_DATA      ? "data"
         : kind == ALT_WEIGHTS ? "weights"
                               : "weights'";
}

static const char *way_name(alt_way way) {
  return way == ALT_SPLIT ? "split" : way == ALT_UNFUSED ? "unfused" : "fused";
}

/* Times and prints one row; *plain_us is the ratios' base (set by the
 * DEFAULT row). A refusal is a row, not a failure. */
static int alt_print_row(gpu_context *ctx, const alt_buffers *b,
                         const alt_row *row, const int *mnk, float *plain_us) {
  lt_matmul_call call = alt_call(b, row, mnk[0], mnk[1], mnk[2]);
  bench_op op = alt_op(row->way);
  const lt_shape *s = &call.shape;
  printf("%-9s %-12s %-8s %5d %5d %5d", kind_name(row->kind),
         lt_epilogue_name(row->epilogue), way_name(row->way), s->m, s->n, s->k);
  ctx->last_error[0] = '\0';
  if (op(ctx, &call) != 0) {
    /* A refusal names its rule in lt_last_error; anything else (a CUDA
     * error) fails the run. */
    if (!lt_last_error(ctx)[0] || cudaPeekAtLastError() != cudaSuccess) {
      printf("  failed (see stderr)\n");
      return -1;
    }
    printf("  refused: %s\n", lt_last_error(ctx));
    CUDA_CHECK(cudaStreamSynchronize(ctx->stream));
    return 0;
  }
  float us = 0.0f;
  char kernels[1024];
  if (bench_time_op(ctx, op, &call, &us) != 0 ||
      call_kernels(kernels, sizeof kernels, ctx, op, &call) != 0)
    return -1;
  if (row->epilogue == LT_EPILOGUE_DEFAULT) *plain_us = us;
  if (*plain_us > 0.0f)
    printf(" %9.1f %6.2fx  %s\n", us, us / *plain_us, kernels);
  else
    printf(" %9.1f %7s  %s\n", us, "-", kernels);
  return 0;
}

static int alt_group(gpu_context *ctx, const alt_buffers *b,
                     const alt_row *rows, int count, const int *mnk,
                     int activation) {
  float plain_us = 0.0f;
  printf("\n");
  for (int i = 0; i < count; i++) {
    if (activation >= 0 && rows[i].activation >= 0 &&
        rows[i].activation != activation)
      continue;
    if (alt_print_row(ctx, b, &rows[i], mnk, &plain_us) != 0) return -1;
  }
  return 0;
}

int bench_alternatives_run(gpu_context *ctx, int activation) {
  alt_buffers b;
  if (alt_alloc(&b, ctx) != 0) {
    alt_free(&b);
    return -1;
  }
  printf("mnist_bench --alternatives: %s, %s, autotune %s (issue 21's \"best "
         "of every heuristic candidate\" is --autotune fast here; exact "
         "keeps the heuristic's first choice in 16-bit)\n",
         ctx->device_name, gpu_precision_name(ctx->options.precision),
         gpu_autotune_name(ctx->options.autotune));
  printf("us per call: median of CUDA-graph replays of 20 calls (one warm-up "
         "replay first); ratio: to the plain GEMM (DEFAULT) of the same m n "
         "k (BGRADA: of the weights call); kernels: the call captured alone, "
         "its kernel nodes in order; "
         "weights': dW (out, in) = dZ X^T, A and B swapped, so BGRADA sums "
         "dZ as BGRADB does\n");
  printf("%-9s %-12s %-8s %5s %5s %5s %9s %7s  %s\n", "call", "epilogue", "way",
         "m", "n", "k", "us", "ratio", "kernels");
  int status = 0;
  int data_count = (int)(sizeof data_rows / sizeof data_rows[0]);
  int weight_count = (int)(sizeof weight_rows / sizeof weight_rows[0]);
  for (int i = 0; status == 0 && i < ALT_SHAPES; i++)
    status =
        alt_group(ctx, &b, data_rows, data_count, data_shapes[i], activation);
  for (int i = 0; status == 0 && i < ALT_SHAPES; i++)
    status = alt_group(ctx, &b, weight_rows, weight_count, weight_shapes[i],
                       activation);
  if (cudaStreamSynchronize(ctx->stream) != cudaSuccess) status = -1;
  alt_free(&b);
  return status;
}
