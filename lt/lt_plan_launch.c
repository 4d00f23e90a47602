/* lt_plan_launch.c: one cublasLtMatmul with a built plan (lt_plan.h), the
 * launch lt_matmul.c and lt_autotune.c share. */
#include "lt/lt_plan.h"

cublasStatus_t lt_plan_launch(gpu_context *ctx, int lane, const lt_plan *p,
                              const lt_matmul_call *c,
                              const cublasLtMatmulAlgo_t *algo) {
  const float alpha = 1.0f, beta = 0.0f;
  return cublasLtMatmul(ctx->lt, p->op, &alpha, c->d_a, p->a, c->d_b, p->b,
                        &beta, c->d_d, p->d, c->d_d, p->d, algo,
                        gpu_lane_workspace(ctx, lane), GPU_WORKSPACE_BYTES,
                        gpu_lane_stream(ctx, lane));
}
