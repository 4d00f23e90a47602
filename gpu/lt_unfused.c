/* lt_unfused.c: the unfused twin of every epilogue (see lt_unfused.h). */
#include "gpu/lt_unfused.h"

#include "gpu/gpu_check.h"
#include "gpu/lt_refuse.h"
#include "gpu/lt_unfused_kernels.h"

int lt_matmul_unfused(gpu_context *ctx, const lt_matmul_call *call) {
  return lt_matmul_unfused_on(ctx, GPU_LANE_MAIN, call);
}

/* The bias-gradient step of DRELU_BGRAD / DGELU_BGRAD: the row sums of
 * D (m, n) on the lane; their partials added on the same lane from its
 * workspace, or (call->d_partials on the main lane) from the caller's
 * buffer on the side lane, which waits for the row sums (ctx->side_fork).
 * The same kernels and sums either way. */
static int bias_grad_sums(gpu_context *ctx, int lane,
                          const lt_matmul_call *call, lt_act_kernel act) {
  const lt_shape *s = &call->shape;
  cudaStream_t stream = gpu_lane_stream(ctx, lane);
  if (!call->d_partials || lane != GPU_LANE_MAIN)
    return lt_row_sums(s->type, call->d_bias_grad, call->d_d, s->ldd, act,
                       call->d_aux, s->aux_ld, s->m, s->n,
                       (float *)gpu_lane_workspace(ctx, lane), &ctx->early,
                       stream);
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
  if (lt_matmul_check(ctx, call) != 0) return -1;
  lt_matmul_call plain = lt_call_plain(call);
  if (lt_matmul_on(ctx, lane, &plain) != 0) return -1;
  const lt_shape *s = &call->shape;
  cudaStream_t stream = gpu_lane_stream(ctx, lane);
  float *scratch = (float *)gpu_lane_workspace(ctx, lane);
  int sum_rows = s->epilogue == LT_EPILOGUE_BGRADB ? s->n : s->m;
  int sum_cols = s->epilogue == LT_EPILOGUE_BGRADB ? s->k : s->n;
  if (lt_epilogue_writes_bias_grad(s->epilogue) &&
      lt_row_sums_scratch(sum_rows, sum_cols) > GPU_WORKSPACE_BYTES)
    return lt_refuse(ctx, s,
                     "expected the row sums' scratch to fit the %zu-byte "
                     "workspace, found %zu bytes needed",
                     (size_t)GPU_WORKSPACE_BYTES,
                     lt_row_sums_scratch(sum_rows, sum_cols));
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
    return bias_grad_sums(ctx, lane, call,
                          s->epilogue == LT_EPILOGUE_DGELU_BGRAD ? LT_ACT_GELU
                                                                 : LT_ACT_RELU);
  case LT_EPILOGUE_BGRADB:
    /* op(B) (k, n) is B stored (n, k) (transb = T, checked): bias_grad[j]
     * = sum over B's row j. Without an activation B is only read. */
    return lt_row_sums(s->type, call->d_bias_grad, (void *)call->d_b, s->ldb,
                       LT_ACT_NONE, NULL, 0, s->n, s->k, scratch, &ctx->early,
                       stream);
  default: return 0;
  }
}
