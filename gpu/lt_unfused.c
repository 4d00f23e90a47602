/* lt_unfused.c: the unfused twin of every epilogue (see lt_unfused.h). */
#include "lt_unfused.h"

#include "lt_unfused_kernels.h"

int lt_matmul_unfused(gpu_context *ctx, const lt_matmul_call *call) {
  return lt_matmul_unfused_on(ctx, GPU_LANE_MAIN, call);
}

int lt_matmul_unfused_on(gpu_context *ctx, int lane,
                         const lt_matmul_call *call) {
  if (lt_matmul_check(ctx, call) != 0) return -1;
  lt_matmul_call plain = {.shape = call->shape,
                          .d_a = call->d_a,
                          .d_b = call->d_b,
                          .d_d = call->d_d};
  plain.shape.epilogue = LT_EPILOGUE_DEFAULT;
  plain.shape.aux_ld = 0;
  if (lt_matmul_on(ctx, lane, &plain) != 0) return -1;
  const lt_shape *s = &call->shape;
  cudaStream_t stream = gpu_lane_stream(ctx, lane);
  switch (s->epilogue) {
  case LT_EPILOGUE_BIAS:
    return lt_bias_add(call->d_d, s->ldd, call->d_bias, s->m, s->n, stream);
  case LT_EPILOGUE_RELU_AUX_BIAS:
    if (lt_bias_add(call->d_d, s->ldd, call->d_bias, s->m, s->n, stream) != 0)
      return -1;
    return lt_relu_mask_forward(call->d_d, s->ldd, (uint8_t *)call->d_aux,
                                s->aux_ld, s->m, s->n, stream);
  case LT_EPILOGUE_DRELU_BGRAD:
    if (lt_relu_mask_backward(call->d_d, s->ldd, (const uint8_t *)call->d_aux,
                              s->aux_ld, s->m, s->n, stream) != 0)
      return -1;
    return lt_bias_grad(call->d_bias_grad, call->d_d, s->ldd, s->m, s->n,
                        stream);
  case LT_EPILOGUE_BGRADB:
    /* op(B) (k, n) is B stored (n, k) (transb = T, checked): bias_grad[j]
     * = sum over B's row j. */
    return lt_bias_grad(call->d_bias_grad, call->d_b, s->ldb, s->n, s->k,
                        stream);
  default: return 0;
  }
}
