/* lt_unfused.h: the same calls as lt_matmul, computed without fusion: a
 * plain matmul (the wrapper with the DEFAULT epilogue) followed by one
 * kernel per epilogue step (lt_unfused_kernels.h), as a framework without
 * epilogues would. Same results up to summation order; same mask layout.
 *
 *   BIAS            DEFAULT, lt_bias_act_forward (bias)
 *   RELU_AUX_BIAS   DEFAULT, lt_bias_act_forward (bias, ReLU and mask)
 *   GELU_AUX_BIAS   DEFAULT, lt_bias_act_forward (bias, GELU, its input)
 *   DRELU_BGRAD     DEFAULT, lt_row_sums (mask, then row sums: 2 kernels)
 *   DGELU_BGRAD     DEFAULT, lt_row_sums (times GELU', then row sums)
 *   BGRADB          DEFAULT, lt_row_sums over op(B) (2 kernels)
 *   DRELU, DGELU    DEFAULT, the row sums' mask / GELU' pass alone
 *                   (lt_row_sums_partials: 1 kernel, its sums unused)
 *   BGRADA          DEFAULT, lt_row_sums over op(A) (2 kernels)
 *
 * A call with an FP8 D (lt_shape.d_fp8) has no twin but its DEFAULT one:
 * the kernels read and write D in the storage type (refused, named).
 *
 * The row sums keep their partial sums in the lane's cuBLASLt workspace,
 * free once the DEFAULT matmul before them (same stream) has finished.
 * A DRELU_BGRAD / DGELU_BGRAD call on the main lane with d_partials set
 * (GPU_CHAIN_SIDE_PARTIALS) keeps them there instead and adds them on the
 * side lane: the main lane's next kernel (the next matmul, which reuses
 * the workspace) then starts right after the row sums, and the bias
 * gradient is ready only once the caller has joined the side lane.
 */
#ifndef MNIST_EPILOGS_LT_UNFUSED_H
#define MNIST_EPILOGS_LT_UNFUSED_H

#include "lt/lt_matmul.h"
#include "lt/lt_unfused_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Enqueues on a lane's stream and workspace (see gpu_context.h). The whole
 * call is checked against the wrapper's rules first (lt_matmul_check), so
 * both modes refuse the same calls. Returns 0 or -1 (reason in
 * lt_last_error and on stderr). */
int lt_matmul_unfused_on(gpu_context *ctx, int lane,
                         const lt_matmul_call *call);

/* lt_matmul_unfused_on(ctx, GPU_LANE_MAIN, call). */
int lt_matmul_unfused(gpu_context *ctx, const lt_matmul_call *call);

/* 0 when the row sums the unfused twin (or the split way) of `call` on
 * `lane` keeps in the lane's workspace fit it (or it keeps none), else -1
 * (refused, naming both sizes): checked before anything is enqueued. */
int lt_unfused_scratch_check(gpu_context *ctx, int lane,
                             const lt_matmul_call *call);

/* The bias-gradient step of a DRELU_BGRAD / DGELU_BGRAD call whose D (m,
 * n) holds the product: call->d_bias_grad[i] = sum_j D[i, j] after `act`
 * (RELU: the mask, GELU: times GELU', NONE: D as it is, the split way's
 * sum), in place on D. Partials added on the lane from its workspace, or
 * (call->d_partials on the main lane) from the caller's buffer on the side
 * lane, which waits for the row sums (ctx->side_fork). Refuses (-1, with
 * the reason in lt_last_error) when the row sums' scratch does not fit the
 * lane's workspace. Returns 0 or -1. */
int lt_unfused_bias_grad(gpu_context *ctx, int lane, const lt_matmul_call *call,
                         lt_act_kernel act);

#ifdef __cplusplus
}
#endif

#endif
