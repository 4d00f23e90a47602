/* lt_plan_launch.c: one cublasLtMatmul with a built plan (lt_plan.h), the
 * launch lt_matmul.c and lt_autotune.c share. */
#include "lt/lt_plan.h"

cublasStatus_t lt_plan_launch(gpu_context *ctx, int lane, const lt_plan *p,
                              const lt_matmul_call *c,
                              const cublasLtMatmulAlgo_t *algo) {
  const float alpha = 1.0f, beta = 0.0f;
  /* C is D unless the call has a C of its own (an FP8 D's BF16 C:
   * lt_matmul.h); beta = 0, so C is never read. */
  const void *matrix_c = c->d_c ? c->d_c : c->d_d;
  return cublasLtMatmul(ctx->lt, p->op, &alpha, c->d_a, p->a, c->d_b, p->b,
                        &beta, matrix_c, p->c, c->d_d, p->d, algo,
                        gpu_lane_workspace(ctx, lane), GPU_WORKSPACE_BYTES,
                        gpu_lane_stream(ctx, lane));
}
