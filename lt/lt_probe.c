/* lt_probe.c: the start-up probe of lt_probe.h, through the wrapper's
 * lt_matmul_plannable on a context that holds only what planning reads
 * (options, a cuBLASLt handle, last_error): no streams, no workspace, no
 * plan cache. Cost: one handle, one 80 KiB allocation and one heuristic
 * query per epilogue of the run (five at most), once per program. */
#include "lt/lt_probe.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpu/gpu_arch.h"
#include "lt/lt_matmul.h"

enum {
  PROBE_SIZE = 64,
  /* A, B, D, the bias vector and the aux, each in its own slice: 64 x 64
   * FP32 elements at most (the GELU aux), 256-aligned. */
  PROBE_SLICE = PROBE_SIZE * PROBE_SIZE * 4,
  PROBE_SLICES = 5
};

lt_epilogue_set lt_run_epilogues(lt_activation activation, int training,
                                 lt_run_ways ways) {
  int gelu = activation == LT_ACTIVATION_GELU;
  lt_epilogue_set set = 0;
  if (ways & LT_RUN_UNFUSED) set |= LT_EPILOGUE_BIT(LT_EPILOGUE_DEFAULT);
  if (!(ways & LT_RUN_FUSED)) return set;
  set |= LT_EPILOGUE_BIT(LT_EPILOGUE_BIAS) |
         LT_EPILOGUE_BIT(gelu ? LT_EPILOGUE_GELU_AUX_BIAS
                              : LT_EPILOGUE_RELU_AUX_BIAS);
  if (training)
    set |= LT_EPILOGUE_BIT(gelu ? LT_EPILOGUE_DGELU_BGRAD
                                : LT_EPILOGUE_DRELU_BGRAD) |
           LT_EPILOGUE_BIT(LT_EPILOGUE_BGRADB) |
           LT_EPILOGUE_BIT(LT_EPILOGUE_DEFAULT);
  return set;
}

int lt_probe_shape(lt_shape *shape, lt_epilogue epilogue, lt_dtype type) {
  const int w = PROBE_SIZE;
  lt_shape s;
  switch (epilogue) {
  case LT_EPILOGUE_DEFAULT: s = lt_shape_backward_weights(w, w, w, 0); break;
  case LT_EPILOGUE_BIAS: s = lt_shape_forward(w, w, w, 0); break;
  case LT_EPILOGUE_RELU_AUX_BIAS: s = lt_shape_forward(w, w, w, 1); break;
  case LT_EPILOGUE_DRELU_BGRAD: s = lt_shape_backward_data(w, w, w); break;
  case LT_EPILOGUE_BGRADB: s = lt_shape_backward_weights(w, w, w, 1); break;
  case LT_EPILOGUE_GELU_AUX_BIAS:
    s = lt_shape_activation(lt_shape_forward(w, w, w, 1), LT_ACTIVATION_GELU);
    break;
  case LT_EPILOGUE_DGELU_BGRAD:
    s = lt_shape_activation(lt_shape_backward_data(w, w, w),
                            LT_ACTIVATION_GELU);
    break;
  default: return -1;
  }
  s.type = type;
  *shape = s;
  return 0;
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
  if (lt_shape_is_fp8(&shape)) /* read only at a launch, which never comes */
    call.d_a_scale = call.d_b_scale =
        (const float *)(d_scratch + 3 * PROBE_SLICE + PROBE_SLICE / 2);
  return call;
}

/* The FP8 run's call of `shape`'s epilogue (layers/mlp_fp8.h): the same
 * epilogue on FP8 operands in the TN layout, BF16 D (E4M3 by E4M3, and
 * DEFAULT as the backward's E4M3 by E5M2); 1 for the bias-gradient
 * epilogues, which an FP8 run never asks of cuBLASLt (its own kernels sum
 * them), 0 otherwise. */
static int probe_shape_fp8(lt_shape *shape) {
  lt_shape s = *shape;
  if (lt_epilogue_writes_bias_grad(s.epilogue)) return 1;
  s.type = LT_DTYPE_BF16;
  s.transa = 1;
  s.transb = 0;
  s.lda = s.ldb = lt_ld_fp8(s.k);
  s.a_fp8 = LT_FP8_E4M3;
  s.b_fp8 = s.epilogue == LT_EPILOGUE_DEFAULT ? LT_FP8_E5M2 : LT_FP8_E4M3;
  *shape = s;
  return 0;
}

/* Plans the probe call of each epilogue in `epilogues` on `ctx`: 0, or -1
 * with msg (the first one refused). */
static int probe_set(char *msg, size_t msg_size, gpu_context *ctx,
                     char *d_scratch, const char *device_name, int capability,
                     lt_epilogue_set epilogues) {
  gpu_precision precision = ctx->options.precision;
  lt_dtype type = lt_precision_dtype(precision);
  for (int e = 0; e < LT_EPILOGUE_COUNT; e++) {
    if (!(epilogues & LT_EPILOGUE_BIT(e))) continue;
    lt_shape shape;
    const char *reason = "the start-up probe has no call for this epilogue";
    if (lt_probe_shape(&shape, (lt_epilogue)e, type) == 0) {
      if (precision == GPU_PRECISION_FP8 && probe_shape_fp8(&shape) != 0)
        continue;
      lt_matmul_call call = probe_call(shape, d_scratch);
      if (lt_matmul_plannable(ctx, &call) == 0) continue;
      reason = lt_last_error(ctx);
    }
    gpu_precision_refusal(msg, msg_size, device_name, capability, precision,
                          lt_epilogue_name((lt_epilogue)e), reason);
    return -1;
  }
  return 0;
}

int lt_probe_precision(char *msg, size_t msg_size, int device,
                       const char *device_name, int capability,
                       gpu_precision precision, lt_epilogue_set epilogues) {
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
  int status = probe_set(msg, msg_size, ctx, d_scratch, device_name, capability,
                         epilogues);
  cudaFree(d_scratch);
  cublasLtDestroy(ctx->lt);
  free(ctx);
  return status;
}
