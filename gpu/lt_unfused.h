/* lt_unfused.h: the same calls as lt_matmul, computed without fusion: a
 * plain matmul (the wrapper with the DEFAULT epilogue) followed by one
 * kernel per epilogue step, as a framework without epilogues would. Same
 * results up to summation order; same mask layout.
 *
 *   BIAS            DEFAULT, gpu_bias_add
 *   RELU_AUX_BIAS   DEFAULT, gpu_bias_add, gpu_relu_mask_forward
 *   DRELU_BGRAD     DEFAULT, gpu_relu_mask_backward, gpu_bias_grad
 *   BGRADB          DEFAULT, gpu_bias_grad over op(B)
 */
#ifndef MNIST_EPILOGS_LT_UNFUSED_H
#define MNIST_EPILOGS_LT_UNFUSED_H

#include "lt_matmul.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Enqueues on ctx->stream; returns 0 or -1 (reason on stderr). */
int lt_matmul_unfused(gpu_context *ctx, const lt_matmul_call *call);

/* The same on a lane's stream and workspace (see gpu_context.h). */
int lt_matmul_unfused_on(gpu_context *ctx, int lane,
                         const lt_matmul_call *call);

#ifdef __cplusplus
}
#endif

#endif
