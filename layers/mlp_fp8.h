/* mlp_fp8.h: the MLP's FP8 step (--precision fp8; issue 22): what it keeps
 * besides the BF16 network it extends (layers/mlp.h with type BF16), and
 * its forward, backward and update. docs/backprop.md, "The FP8 step", draws
 * the whole step.
 *
 * cuBLASLt's FP8 GEMMs run only in the TN format (lt_shape_check), so each
 * FP8 operand must be stored with k as its leading dimension:
 *   forward   Y (out, n) = W8^T X8:   A = W8, the weights (in, out) as
 *             stored (ld lt_ld_fp8(in)), B = X8, the input (in, n)
 *   data      dX (in, n) = W8T^T dZ8: A = W8T, the weights transposed
 *             (out, in), B = dZ8, the gradient (out, n)
 *   weights   dWt (in, out) = X8T^T dZ8T: A = X8T (n, in) and B = dZ8T
 *             (n, out), the input and gradient transposed
 * So every FP8 tensor is written in both layouts (fp8_cast.h): the input
 * of a layer by a cast of its own after the layer below's forward GEMM; a
 * gradient by the kernel that applies the ReLU mask (or GELU') to the data
 * GEMM's BF16 output and sums the bias gradient; the weights by SGD, in
 * the pass that updates them (sgd_fp8.h). Outputs of every
 * GEMM are BF16 (cuBLASLt's AMAX_D needs an FP8 D, and each output is read
 * by a project kernel anyway, which takes the amax on the way).
 *
 * Formats: weights and activations E4M3; gradients E5M2 (hybrid, the
 * default: the range of gradients wants E5M2's exponent) or E4M3 (--fp8-
 * format e4m3). Scales per tensor, on the GPU, delayed (the amax history
 * of FP8_HISTORY steps, one pass per cast) or current (--fp8-scaling
 * current: the tensor's own amax, one more read); the first training pass
 * and an inference-only network always cast with current scaling. Forward GEMMs
 * use fast accumulation, the backward's do not (Transformer Engine's choice;
 * measured in docs/performance.md). The master weights, the momentum and
 * checkpoints stay FP32; the BF16 copy SGD writes serves the bias vectors
 * and any call cuBLASLt cannot run in FP8, which then runs in BF16 (named
 * on stderr once, and by --show-plans: its plan is a bf16 one).
 */
#ifndef MNIST_EPILOGS_MLP_FP8_H
#define MNIST_EPILOGS_MLP_FP8_H

#include "gpu/gpu_options.h"
#include "layers/fp8_cast.h"
#include "layers/mlp.h"
#include "layers/sgd.h"

/* The tensors of layer l: fp8_meta index 3 l + role. */
typedef enum mlp_fp8_role {
  MLP_FP8_WEIGHTS,
  MLP_FP8_INPUT,
  MLP_FP8_GRADIENT,
  MLP_FP8_ROLES
} mlp_fp8_role;

/* Creates net->fp8 for a BF16 network `net` (its buffers exist; `slabs`
 * its SGD view, mlp_sgd_slabs). Returns 0, or -1 with a message on
 * stderr. */
int mlp_fp8_create(mlp *net, const gpu_fp8_recipe *recipe,
                   const sgd_slabs *slabs);
void mlp_fp8_destroy(mlp *net);

/* Every device buffer of the FP8 state (amax histories, scales, the step
 * counter, the FP8 copies), one allocation: *d_state, *bytes. Returns 0,
 * or -1 when the network has no FP8 state. */
int mlp_fp8_state(const mlp *net, void **d_state, size_t *bytes);

/* The FP8 weights from the master weights, scaled by their own amax
 * (after initialisation or a load), which starts their amax history (one
 * roll). On ctx->stream. */
int mlp_fp8_weights_init(mlp *net, gpu_context *ctx);

/* mlp_forward in FP8: per layer, the input cast (both layouts), then the
 * forward GEMM with its epilogue in FP8 (or BF16 where cuBLASLt has no FP8
 * plan). */
int mlp_fp8_forward(mlp *net, gpu_context *ctx, const void *d_x, int n,
                    mlp_mode mode);

/* mlp_backward's part after the loss gradient (top->d_dz, BF16): per layer
 * from the top, the gradient's cast (masked, with the bias gradient's
 * partials), the weight gradient and bias gradient on the side lane, the
 * data gradient on the main lane; joined at the end. */
int mlp_fp8_backward(mlp *net, gpu_context *ctx, const void *d_x, int n);

/* mlp_update in FP8: SGD writing the FP8 weights in both layouts in the
 * same pass (sgd_fp8.h), then the amax histories rolled (one step). On
 * ctx->stream. */
int mlp_fp8_update(mlp *net, gpu_context *ctx, const float *d_lr,
                   float momentum);

/* The FP8 step's matmul calls (mlp_step_calls' contract), as they run for
 * batch n (an FP8 call, or its BF16 stand-in where cuBLASLt has none). */
int mlp_fp8_step_calls(const mlp *net, const void *d_x, int n,
                       mlp_call calls[MLP_MAX_STEP_CALLS]);

/* Layer l's FP8 buffers, for tests and tools that read them (shapes as in
 * mlp_fp8.c: ld lt_ld_fp8 of the rows; the transposed copies' ld is
 * lt_ld_fp8(n) of the batch last cast; NULL where the layer has none). */
typedef struct mlp_fp8_layer {
  const uint8_t *w8, *w8t, *x8, *x8t, *dz8, *dz8t;
  const float *partials;
} mlp_fp8_layer;

mlp_fp8_layer mlp_fp8_layer_view(const mlp *net, int l);

/* 1 when layer l's call of `kind` ran in FP8 at the last batch decided
 * (the first forward of each batch size decides), 0 when in BF16. */
int mlp_fp8_runs_fp8(const mlp *net, int l, mlp_call_kind kind);

/* 1 when layer l's gradient dZ is written back masked into its BF16
 * buffer (a hidden layer whose weight or data gradient runs in BF16);
 * else that buffer keeps the data GEMM's raw output. */
int mlp_fp8_masks_in_place(const mlp *net, int l);

/* The gradients' format (E5M2 in the hybrid recipe, else E4M3). */
fp8_format mlp_fp8_gradient_format(const mlp *net);

/* What the casts lost and the last scales, per tensor, read back (waits
 * for ctx->stream): meta[0 .. 3 * depth). Returns 0 or -1. */
int mlp_fp8_read_meta(const mlp *net, gpu_context *ctx, fp8_meta *meta);

/* "W1", "X1", "dZ1" ...: the name of tensor `index` (3 l + role), layers
 * numbered from 1. */
void mlp_fp8_tensor_name(char *out, size_t size, int index);

#endif
