/* lt_probe.c: the start-up probe of lt_probe.h, through the wrapper's
 * lt_matmul_plannable on a context that holds only what planning reads
 * (options, a cuBLASLt handle, last_error): no streams, no workspace, no
 * plan cache. Cost: one handle, one 80 KiB allocation and seven heuristic
 * queries, once per program. */
#include "gpu/lt_probe.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpu/gpu_arch.h"
#include "gpu/lt_matmul.h"

enum {
  PROBE_SIZE = 64,
  /* A, B, D, the bias vector and the aux, each in its own slice: 64 x 64
   * FP32 elements at most (the GELU aux), 256-aligned. */
  PROBE_SLICE = PROBE_SIZE * PROBE_SIZE * 4,
  PROBE_SLICES = 5
};

lt_shape lt_probe_shape(int i, lt_dtype type) {
  const int w = PROBE_SIZE;
  lt_shape hidden = lt_shape_forward(w, w, w, 1);
  lt_shape data = lt_shape_backward_data(w, w, w);
  lt_shape shapes[LT_PROBE_CALLS] = {
      hidden,
      lt_shape_forward(w, w, w, 0),
      data,
      lt_shape_backward_weights(w, w, w, 1),
      lt_shape_backward_weights(w, w, w, 0),
      lt_shape_activation(hidden, LT_ACTIVATION_GELU),
      lt_shape_activation(data, LT_ACTIVATION_GELU),
  };
  lt_shape s = shapes[i >= 0 && i < LT_PROBE_CALLS ? i : 0];
  s.type = type;
  return s;
}

/* The call of `shape` on the scratch slices, with exactly the vectors its
 * epilogue uses (lt_matmul_check's rule). */
static lt_matmul_call probe_call(lt_shape shape, char *d_scratch) {
  lt_epilogue e = shape.epilogue;
  lt_matmul_call call = {.shape = shape,
                         .d_a = d_scratch,
                         .d_b = d_scratch + PROBE_SLICE,
                         .d_d = d_scratch + 2 * PROBE_SLICE};
  void *d_vector = d_scratch + 3 * PROBE_SLICE;
  if (lt_epilogue_reads_bias(e)) call.d_bias = d_vector;
  if (lt_epilogue_writes_bias_grad(e)) call.d_bias_grad = d_vector;
  if (lt_epilogue_uses_aux(e)) call.d_aux = d_scratch + 4 * PROBE_SLICE;
  return call;
}

int lt_probe_precision(char *msg, size_t msg_size, int device,
                       const char *device_name, int capability,
                       gpu_precision precision) {
  msg[0] = 0;
  gpu_context *ctx = calloc(1, sizeof *ctx);
  char *d_scratch = NULL;
  if (!ctx || cudaSetDevice(device) != cudaSuccess ||
      cublasLtCreate(&ctx->lt) != CUBLAS_STATUS_SUCCESS ||
      cudaMalloc((void **)&d_scratch, PROBE_SLICES * PROBE_SLICE) !=
          cudaSuccess) {
    cudaGetLastError(); /* gpu_context_create meets and reports it */
    if (ctx && ctx->lt) cublasLtDestroy(ctx->lt);
    free(ctx);
    return 0;
  }
  ctx->options = gpu_options_defaults();
  ctx->options.device = device;
  ctx->options.precision = precision;
  ctx->options.autotune = GPU_AUTOTUNE_OFF;
  int status = 0;
  lt_dtype type = gpu_precision_dtype(precision);
  for (int i = 0; i < LT_PROBE_CALLS && status == 0; i++) {
    lt_matmul_call call = probe_call(lt_probe_shape(i, type), d_scratch);
    if (lt_matmul_plannable(ctx, &call) != 0) {
      gpu_precision_refusal(msg, msg_size, device_name, capability, precision,
                            lt_epilogue_name(call.shape.epilogue),
                            lt_last_error(ctx));
      status = -1;
    }
  }
  cudaFree(d_scratch);
  cublasLtDestroy(ctx->lt);
  free(ctx);
  return status;
}
