/* lt_split.c: the split way of DRELU_BGRAD / DGELU_BGRAD (lt_split.h). */
#include "lt/lt_split.h"

#include "lt/lt_refuse.h"
#include "lt/lt_unfused.h"

lt_matmul_call lt_call_split(const lt_matmul_call *call) {
  lt_matmul_call gemm = {.shape = lt_shape_split(call->shape),
                         .d_a = call->d_a,
                         .d_b = call->d_b,
                         .d_d = call->d_d,
                         .d_aux = call->d_aux,
                         .pick = {.algo = call->pick.split}};
  return gemm;
}

int lt_matmul_split_on(gpu_context *ctx, int lane, const lt_matmul_call *call) {
  if (lt_matmul_check(ctx, call) != 0) return -1;
  if (!lt_epilogue_has_split(call->shape.epilogue))
    return lt_refuse(ctx, &call->shape,
                     "the split way is for DRELU_BGRAD and DGELU_BGRAD, "
                     "found %s",
                     lt_epilogue_name(call->shape.epilogue));
  /* Refused before the GEMM is enqueued, as the unfused twin is. */
  if (lt_unfused_scratch_check(ctx, lane, call) != 0) return -1;
  lt_matmul_call gemm = lt_call_split(call);
  if (lt_matmul_on(ctx, lane, &gemm) != 0) return -1;
  /* D (m, n) already holds the masked / GELU'-scaled product: sum it as it
   * is. */
  return lt_unfused_bias_grad(ctx, lane, call, LT_ACT_NONE);
}

int lt_matmul_split(gpu_context *ctx, const lt_matmul_call *call) {
  return lt_matmul_split_on(ctx, GPU_LANE_MAIN, call);
}
