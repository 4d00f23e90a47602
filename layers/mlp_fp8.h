/* mlp_fp8.h: the MLP's FP8 step (--precision fp8; docs/backprop.md section
 * 12 draws it and says who writes what): a precision of the one step
 * (mlp.h), whose forward, backward and call list run the layers' calls on
 * FP8 views of them (linear_fp8) with the hooks below between them. It
 * keeps, besides the BF16 network it extends, the FP8 copies of the
 * weights (W8, W8T), inputs (X8, X8T) and gradients (dZ8, dZ8T), the bias
 * gradients' partial sums and each tensor's scaling state (fp8_meta):
 * cuBLASLt's FP8 GEMMs run only in the TN format, so every FP8 operand is
 * stored with k as its leading dimension, most of them in both layouts:
 *   forward   Y (out, n) = W8^T X8     A = W8 (in, out), B = X8 (in, n)
 *   data      dX (in, n) = W8T^T dZ8   A = W8T (out, in), B = dZ8 (out, n)
 *   weights   dWt (in, out) = X8T^T dZ8T   A = X8T (n, in), B = dZ8T (n, out)
 * A hidden layer's forward GEMM writes the next layer's X8 itself (E4M3 D,
 * D_SCALE the next layer's scale, AMAX_D its amax) and a transpose makes
 * X8T; where it cannot (--mode unfused: the epilogue is a BF16 kernel of
 * its own; current scaling or a first pass: no scale yet; no plan) it
 * writes BF16 and a cast makes both. The batch comes cast (mlp_fp8_batch
 * below); the loss kernel and the casts of the data GEMMs' outputs make
 * dZ8 and dZ8T; SGD makes W8 and W8T, sums the bias gradients and rolls
 * the histories. Every width is a multiple of 16 (mlp_create refuses
 * others) and the weight GEMMs' k the batch rounded up to 16 (the padding
 * rows of X8T and dZ8T zero): every call runs in FP8, none falls back.
 * Scales: delayed (from the amax history, computed once per step by the
 * roll) or current (a tensor's own amax); the first training pass after
 * the parameters are set casts with current scaling and starts the
 * histories, and an inference-only network always does.
 */
#ifndef MNIST_EPILOGS_MLP_FP8_H
#define MNIST_EPILOGS_MLP_FP8_H

#include "layers/fp8_cast.h"
#include "layers/mlp.h"
#include "layers/xent.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The tensors of the scaling state, role-major: index role * depth + l. */
typedef enum mlp_fp8_role {
  MLP_FP8_WEIGHTS,
  MLP_FP8_INPUT,
  MLP_FP8_GRADIENT,
  MLP_FP8_ROLES
} mlp_fp8_role;

/* What the FP8 step keeps (mlp.fp8_tensors); layer l has in = widths[l],
 * out = widths[l + 1]; N = max_batch. */
typedef struct mlp_fp8_tensors {
  fp8_recipe recipe;
  void *d_block;                   /* every buffer below, one allocation, */
  size_t state_bytes;              /* whose first bytes are the state: */
  fp8_meta *d_meta;                /* [3 depth], role-major: the training's */
  fp8_meta *d_eval_meta;           /* [depth] after them: evaluation's inputs */
  uint32_t *d_step;                /* steps rolled */
  uint32_t *d_finished;            /* SGD's block counter (sgd_fp8.h) */
  uint8_t *w8[MLP_MAX_LAYERS];     /* (in, out), ld lt_ld_fp8(in) */
  uint8_t *w8t[MLP_MAX_LAYERS];    /* (out, in), ld lt_ld_fp8(out); l > 0 */
  uint8_t *x8[MLP_MAX_LAYERS];     /* l > 0: (in, N), ld lt_ld_fp8(in) */
  uint8_t *x8t[MLP_MAX_LAYERS];    /* l > 0, training: (lt_ld_fp8(N), in) */
  uint8_t *dz8[MLP_MAX_LAYERS];    /* l > 0, training: (out, N) */
  uint8_t *dz8t[MLP_MAX_LAYERS];   /* training: (lt_ld_fp8(N), out) */
  float *partials[MLP_MAX_LAYERS]; /* training: [fp8_cast_tiles(N)][out] */
  int calibrated;                  /* a training pass started the histories */
  int writes_fp8[MLP_MAX_LAYERS];  /* 1: the forward's FP8 output planned,
                                      -1: refused (BF16 and a cast), 0: not
                                      asked yet */
  mlp_mode train_mode;             /* of the last training pass */
  int tiles; /* fp8_cast_tiles of the last backward's batch */
} mlp_fp8_tensors;

/* A forward pass of a training step, or an evaluation pass (mlp.h). */
typedef enum mlp_pass { MLP_PASS_TRAIN, MLP_PASS_EVAL } mlp_pass;

/* An FP8 network's input (mlp_forward's d_x), written once per epoch by
 * the gather (train/epoch_gather.h): at byte 0 the scale record (float
 * scale_inv, then scale: the pixels' scale); at MLP_FP8_BATCH_X8, X8 (in,
 * n) E4M3, ld lt_ld_fp8(in); at mlp_fp8_batch_x8t(in, n), X8T
 * (lt_ld_fp8(n), in), ld lt_ld_fp8(n), its rows n .. lt_ld_fp8(n) - 1
 * zero. mlp_fp8_batch_bytes: the block's size, a multiple of 256. */
#define MLP_FP8_BATCH_X8 256
size_t mlp_fp8_batch_x8t(int in, int n);
size_t mlp_fp8_batch_bytes(int in, int n);

/* net->fp8_tensors for a BF16 network whose buffers exist, as `recipe`
 * says. Returns 0, or -1 with a message on stderr (a width that is not a
 * multiple of 16 named). */
int mlp_fp8_create(mlp *net, const fp8_recipe *recipe);
void mlp_fp8_destroy(mlp *net);

/* After the master weights were set: W8 and W8T cast from them with their
 * own amax (current scaling); every history, amax, count and the step
 * zeroed, every scale 1; the next training pass calibrates. On
 * ctx->stream. */
int mlp_fp8_reset(mlp *net, gpu_context *ctx);

/* The device memory a training step changes, one allocation: every
 * tensor's scaling state (and the evaluation's, beside it), the step
 * counter and the FP8 weights (for a tool that snapshots and restores a
 * network around replayed steps).
 * Returns 0, or -1 when the network has no FP8 state. The host-side state
 * a step can change: the calibration (once, by the first training pass
 * after the parameters are set), the forward GEMMs that write FP8
 * (decided once, at the first pass that asks), the mode of the last
 * training pass and its batch's tiles (the same again when the same step
 * is replayed). */
int mlp_fp8_state(const mlp *net, void **d_state, size_t *bytes);

/* The step's hooks (mlp.c, mlp_step.c). */

/* Before a forward pass: the first training pass that may write FP8
 * outputs asks cuBLASLt, once per layer, for its FP8-output plan
 * (lt_matmul_plannable; a refusal is named once on stderr and the layer
 * writes BF16 and casts); a training pass records `mode`. */
int mlp_fp8_begin_pass(mlp *net, gpu_context *ctx, const void *d_x, int n,
                       mlp_mode mode, mlp_pass pass);

/* Layer l with its FP8 view for this pass (linear_fp8: the batch's or
 * the network's X8, where its output goes). */
linear_layer mlp_fp8_layer(const mlp *net, int l, const void *d_x, int n,
                           mlp_mode mode, mlp_pass pass);

/* After layer l's forward GEMM: the next layer's X8T, transposed from the
 * codes the GEMM wrote (training) or, where it wrote BF16, X8 (and X8T
 * when training) cast from its output. */
int mlp_fp8_after_forward(mlp *net, gpu_context *ctx, int l, int n,
                          mlp_mode mode, mlp_pass pass);

/* The loss kernel's cast of the output layer's gradient (xent.h) when
 * the step folds it there (delayed, calibrated), into *out: else NULL. */
const xent_fp8 *mlp_fp8_loss_cast(const mlp *net, xent_fp8 *out, int n);

/* Before layer l's backward GEMMs, on the main lane: layer l's dZ8 (for
 * its data GEMM, above layer 0) and dZ8T from its BF16 gradient, masked
 * by its ReLU bits or GELU' (hidden layers), and its bias gradient's
 * partial sums; nothing for the output layer when the loss cast it. */
int mlp_fp8_cast_gradient(mlp *net, gpu_context *ctx, int l, int n);

/* After the backward: the batch's tiles for SGD's bias sums; a first
 * (calibrating) pass rolls the histories it started. */
int mlp_fp8_end_backward(mlp *net, gpu_context *ctx, int n);

/* mlp_update in FP8: one SGD pass over `slabs` (the network's,
 * mlp_sgd_slabs; sgd_fp8.h). On ctx->stream. */
int mlp_fp8_update(mlp *net, gpu_context *ctx, const sgd_slabs *slabs,
                   const float *d_lr, float momentum);

/* For tests and reports. */

/* 1 when layer l's forward writes its output in FP8 under `mode` (a
 * training network, delayed and calibrated, cuBLASLt's plan found). */
int mlp_fp8_writes_fp8(const mlp *net, int l, mlp_mode mode);

/* The training scaling state, read back (waits for ctx->stream):
 * meta[0 .. 3 * depth), role-major. Returns 0 or -1. */
int mlp_fp8_read_meta(const mlp *net, gpu_context *ctx, fp8_meta *meta);

#ifdef __cplusplus
}
#endif

#endif
