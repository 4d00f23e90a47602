/* lt_unfused.c: the unfused twin of every epilogue (see lt_unfused.h). */
#include "lt_unfused.h"

#include "kernels.h"

int lt_matmul_unfused(gpu_context *ctx, const lt_matmul_call *call) {
  return lt_matmul_unfused_on(ctx, GPU_LANE_MAIN, call);
}

int lt_matmul_unfused_on(gpu_context *ctx, int lane,
                         const lt_matmul_call *call) {
  lt_matmul_call plain = *call;
  plain.epilogue = LT_EPILOGUE_DEFAULT;
  plain.d_bias = NULL;
  plain.d_aux = NULL;
  plain.aux_ld = 0;
  /* The whole call is checked against the epilogue rules first, so both
   * modes refuse the same calls and the kernels never see a bad aux_ld. */
  ctx->last_error[0] = '\0';
  if (lt_matmul_check(ctx, call) != 0) return -1;
  if (lt_matmul_on(ctx, lane, &plain) != 0) return -1;
  const lt_matmul_call *c = call;
  cudaStream_t s = gpu_lane_stream(ctx, lane);
  switch (c->epilogue) {
  case LT_EPILOGUE_BIAS:
    return gpu_bias_add(c->d_d, c->ldd, c->d_bias, c->m, c->n, s);
  case LT_EPILOGUE_RELU_AUX_BIAS:
    if (gpu_bias_add(c->d_d, c->ldd, c->d_bias, c->m, c->n, s) != 0) return -1;
    return gpu_relu_mask_forward(c->d_d, c->ldd, (uint8_t *)c->d_aux,
                                 c->aux_ld, c->m, c->n, s);
  case LT_EPILOGUE_DRELU_BGRAD:
    if (gpu_relu_mask_backward(c->d_d, c->ldd, (const uint8_t *)c->d_aux,
                               c->aux_ld, c->m, c->n, s) != 0)
      return -1;
    return gpu_bias_grad(c->d_bias, c->d_d, c->ldd, c->m, c->n, s);
  case LT_EPILOGUE_BGRADB:
    /* op(B) (k, n) is B stored (n, k): bias[j] = sum over B's row j. */
    return gpu_bias_grad(c->d_bias, c->d_b, c->ldb, c->n, c->k, s);
  default:
    return 0;
  }
}
