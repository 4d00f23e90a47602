/* lt_split.h: the split way of a DRELU_BGRAD / DGELU_BGRAD call, a third
 * way besides fused and unfused that --mode auto may choose (lt_auto.h):
 * the GEMM with cuBLASLt's plain DRELU / DGELU epilogue (the mask or GELU'
 * applied inside the GEMM, no bias gradient), then the project's row sums
 * of D for the bias gradient (lt_unfused_bias_grad with LT_ACT_NONE: two
 * kernels, a fixed summation order). Why: on the H200 in BF16, DGELU alone
 * is folded into the GEMM kernel while DGELU_BGRAD runs the GEMM plus a
 * separate cuBLASLt kernel (docs/backprop.md section 11).
 *
 * Same numbers as the fused call within rounding (the sum's order
 * differs), the same D, the same aux read. The row sums keep their
 * partials in the lane's workspace, or with call->d_partials on the main
 * lane are finished on the side lane, as the unfused twin does
 * (lt_unfused.h). */
#ifndef MNIST_EPILOGS_LT_SPLIT_H
#define MNIST_EPILOGS_LT_SPLIT_H

#include "lt/lt_matmul.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The split way's GEMM: the call's shape through lt_shape_split (DRELU or
 * DGELU), the same A, B, D and aux, no bias gradient; its pick is the
 * call's pick.split. */
lt_matmul_call lt_call_split(const lt_matmul_call *call);

/* Enqueues the split way of a DRELU_BGRAD / DGELU_BGRAD call on a lane,
 * checked as the fused call is (lt_matmul_check). Returns 0, or -1 with the
 * reason in lt_last_error and on stderr (another epilogue; or cuBLASLt
 * has no plan for the DRELU / DGELU GEMM). */
int lt_matmul_split_on(gpu_context *ctx, int lane, const lt_matmul_call *call);

/* lt_matmul_split_on(ctx, GPU_LANE_MAIN, call). */
int lt_matmul_split(gpu_context *ctx, const lt_matmul_call *call);

#ifdef __cplusplus
}
#endif

#endif
