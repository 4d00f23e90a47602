/* lt_unfused.c: the unfused twin of every epilogue (see lt_unfused.h). */
#include "lt/lt_unfused.h"

#include "gpu/gpu_check.h"
#include "lt/lt_refuse.h"
#include "lt/lt_unfused_kernels.h"

int lt_matmul_unfused(gpu_context *ctx, const lt_matmul_call *call) {
  return lt_matmul_unfused_on(ctx, GPU_LANE_MAIN, call);
}

/* 0 when the row sums of a (rows, cols) matrix keep their partials within
 * the lane's workspace, else -1 (refused, naming both sizes). */
static int scratch_fits(gpu_context *ctx, const lt_shape *s, int rows,
                        int cols) {
  size_t need = lt_row_sums_scratch(rows, cols);
  if (need <= GPU_WORKSPACE_BYTES) return 0;
  return lt_refuse(ctx, s,
                   "expected the row sums' scratch to fit the %zu-byte "
                   "workspace, found %zu bytes needed",
                   (size_t)GPU_WORKSPACE_BYTES, need);
}

int lt_unfused_scratch_check(gpu_context *ctx, int lane,
                             const lt_matmul_call *call) {
  const lt_shape *s = &call->shape;
  switch (s->epilogue) {
  case LT_EPILOGUE_BGRADB: return scratch_fits(ctx, s, s->n, s->k);
  case LT_EPILOGUE_BGRADA: return scratch_fits(ctx, s, s->m, s->k);
  case LT_EPILOGUE_DRELU:
  case LT_EPILOGUE_DGELU: return scratch_fits(ctx, s, s->m, s->n);
  case LT_EPILOGUE_DRELU_BGRAD:
  case LT_EPILOGUE_DGELU_BGRAD:
    /* The caller's own partials buffer (side lane) or the workspace. */
    return call->d_partials && lane == GPU_LANE_MAIN
               ? 0
               : scratch_fits(ctx, s, s->m, s->n);
  default: return 0;
  }
}

/* The same kernels and sums whichever lane adds the partials. */
int lt_unfused_bias_grad(gpu_context *ctx, int lane, const lt_matmul_call *call,
                         lt_act_kernel act) {
  const lt_shape *s = &call->shape;
  cudaStream_t stream = gpu_lane_stream(ctx, lane);
  if (lt_unfused_scratch_check(ctx, lane, call) != 0) return -1;
  if (!call->d_partials || lane != GPU_LANE_MAIN) {
    return lt_row_sums(s->type, call->d_bias_grad, call->d_d, s->ldd, act,
                       call->d_aux, s->aux_ld, s->m, s->n,
                       (float *)gpu_lane_workspace(ctx, lane), &ctx->early,
                       stream);
  }
  if (lt_row_sums_partials(s->type, call->d_d, s->ldd, act, call->d_aux,
                           s->aux_ld, s->m, s->n, call->d_partials, &ctx->early,
                           stream) != 0)
    return -1;
  CUDA_CHECK(cudaEventRecord(ctx->side_fork, stream));
  CUDA_CHECK(cudaStreamWaitEvent(ctx->side_stream, ctx->side_fork, 0));
  return lt_add_partials(s->type, call->d_bias_grad, call->d_partials, s->m,
                         s->n, &ctx->early, ctx->side_stream);
}

int lt_matmul_unfused_on(gpu_context *ctx, int lane,
                         const lt_matmul_call *call) {
  /* Refused before anything is enqueued (inside a capture, a refusal
   * after the GEMM would leave half a call). */
  if (lt_matmul_check(ctx, call) != 0 ||
      lt_unfused_scratch_check(ctx, lane, call) != 0)
    return -1;
  if (call->shape.d_fp8 && call->shape.epilogue != LT_EPILOGUE_DEFAULT)
    return lt_refuse(ctx, &call->shape,
                     "the unfused twin applies %s to D in the storage type, "
                     "and an FP8 D has none: run the call fused, or with D "
                     "in %s",
                     lt_epilogue_name(call->shape.epilogue),
                     lt_dtype_name(call->shape.type));
  lt_matmul_call plain = lt_call_plain(call);
  if (lt_matmul_on(ctx, lane, &plain) != 0) return -1;
  const lt_shape *s = &call->shape;
  cudaStream_t stream = gpu_lane_stream(ctx, lane);
  float *scratch = (float *)gpu_lane_workspace(ctx, lane);
  switch (s->epilogue) {
  case LT_EPILOGUE_BIAS:
    return lt_bias_act_forward(s->type, call->d_d, s->ldd, call->d_bias,
                               LT_ACT_NONE, NULL, 0, s->m, s->n, &ctx->early,
                               stream);
  case LT_EPILOGUE_RELU_AUX_BIAS:
  case LT_EPILOGUE_GELU_AUX_BIAS:
    return lt_bias_act_forward(
        s->type, call->d_d, s->ldd, call->d_bias,
        s->epilogue == LT_EPILOGUE_GELU_AUX_BIAS ? LT_ACT_GELU : LT_ACT_RELU,
        call->d_aux, s->aux_ld, s->m, s->n, &ctx->early, stream);
  case LT_EPILOGUE_DRELU_BGRAD:
  case LT_EPILOGUE_DGELU_BGRAD:
    return lt_unfused_bias_grad(
        ctx, lane, call,
        s->epilogue == LT_EPILOGUE_DGELU_BGRAD ? LT_ACT_GELU : LT_ACT_RELU);
  case LT_EPILOGUE_DRELU:
  case LT_EPILOGUE_DGELU:
    /* The row sums' first kernel is the mask / GELU' pass over D (m, n)
     * in place; its partial sums, unused, land in the workspace. */
    return lt_row_sums_partials(
        s->type, call->d_d, s->ldd,
        s->epilogue == LT_EPILOGUE_DGELU ? LT_ACT_GELU : LT_ACT_RELU,
        call->d_aux, s->aux_ld, s->m, s->n, scratch, &ctx->early, stream);
  case LT_EPILOGUE_BGRADA:
    /* op(A) (m, k) is A stored (lda, k) (transa = N, checked):
     * bias_grad[i] = sum over A's row i, A only read. */
    return lt_row_sums(s->type, call->d_bias_grad, (void *)call->d_a, s->lda,
                       LT_ACT_NONE, NULL, 0, s->m, s->k, scratch, &ctx->early,
                       stream);
  case LT_EPILOGUE_BGRADB:
    /* op(B) (k, n) is B stored (n, k) (transb = T, checked): bias_grad[j]
     * = sum over B's row j. Without an activation B is only read. */
    return lt_row_sums(s->type, call->d_bias_grad, (void *)call->d_b, s->ldb,
                       LT_ACT_NONE, NULL, 0, s->n, s->k, scratch, &ctx->early,
                       stream);
  default: return 0;
  }
}
