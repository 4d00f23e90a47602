/* mlp_fp8.h: the MLP's FP8 step (--precision fp8), a precision of the one step
 * (mlp.h): its forward, backward and call list run each layer's FP8 view
 * (linear_fp8), the hooks below between the GEMMs. It keeps the FP8 copies of
 * weights (W8, W8T), inputs (X8, X8T), gradients (dZ8, dZ8T), k leading (FP8
 * GEMMs run only TN), the bias gradients' partial sums, each tensor's fp8_meta.
 * The GEMMs' shapes: linear_shape_*_fp8 (linear.h); who writes which copy,
 * the scales: docs/backprop.md section 12. */
#ifndef MNIST_EPILOGS_MLP_FP8_H
#define MNIST_EPILOGS_MLP_FP8_H

#include "layers/fp8_cast.h"
#include "layers/mlp.h"
#include "layers/xent.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The scaling state's tensors, role-major: index role * depth + l. */
typedef enum mlp_fp8_role {
  MLP_FP8_WEIGHTS,
  MLP_FP8_INPUT,
  MLP_FP8_GRADIENT
} mlp_fp8_role;

/* What the FP8 step keeps (mlp.fp8_tensors); layer l: in, out; N: max batch. */
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
  int writes_fp8[MLP_MAX_LAYERS];  /* the forward's FP8 D: 1 planned, -1
                                      refused, 0 unasked */
  mlp_mode train_mode;             /* of the last training pass */
  int tiles; /* fp8_cast_tiles of the last backward's batch */
} mlp_fp8_tensors;

/* An FP8 network's input (mlp_forward's d_x), written per epoch by the
 * gather (train/epoch_gather.h): at byte 0 float scale_inv, then scale; at
 * MLP_FP8_BATCH_X8, X8 (in, n) E4M3, ld lt_ld_fp8(in); at
 * mlp_fp8_batch_x8t(in, n), X8T (lt_ld_fp8(n), in), its rows n and on
 * zero. mlp_fp8_batch_bytes: the block's size, a multiple of 256. */
#define MLP_FP8_BATCH_X8 256
size_t mlp_fp8_batch_x8t(int in, int n);
size_t mlp_fp8_batch_bytes(int in, int n);

/* net->fp8_tensors for a BF16 network whose buffers exist. Returns 0, or
 * -1 with a message (a width not a multiple of 16 named). */
int mlp_fp8_create(mlp *net, const fp8_recipe *recipe);
void mlp_fp8_destroy(mlp *net);

/* After the master weights were set, on ctx->stream: W8, W8T cast at their own
 * amax, the rest zeroed, scales 1; the next training pass calibrates. */
int mlp_fp8_reset(mlp *net, gpu_context *ctx);

/* The device memory a training step changes, one allocation (scaling states,
 * step counter, FP8 weights), for a snapshot around replayed steps; 0, or -1
 * without FP8 state. Host-side a step changes only what a replay repeats, and
 * once the calibration and the FP8-output decisions. */
int mlp_fp8_state(const mlp *net, void **d_state, size_t *bytes);

/* The step's hooks (mlp.c, mlp_step.c). */

/* Before a forward pass: the first that may write FP8 outputs asks
 * cuBLASLt for each layer's plan (a refusal named once on stderr: BF16 and
 * a cast); a training pass records `mode`. */
int mlp_fp8_begin_pass(mlp *net, gpu_context *ctx, const void *d_x, int n,
                       mlp_mode mode, mlp_pass pass);

/* Layer l with its FP8 view for this pass (linear_fp8). */
linear_layer mlp_fp8_layer(const mlp *net, int l, const void *d_x, int n,
                           mlp_mode mode, mlp_pass pass);

/* After layer l's forward GEMM: the next layer's X8T transposed from the
 * GEMM's codes, or where it wrote BF16, X8 (and X8T) cast. */
int mlp_fp8_after_forward(mlp *net, gpu_context *ctx, int l, int n,
                          mlp_mode mode, mlp_pass pass);

/* The loss kernel's cast of the output gradient (xent.h), into *out, when
 * the step folds it there (delayed, calibrated); else NULL. */
const xent_fp8 *mlp_fp8_loss_cast(const mlp *net, xent_fp8 *out, int n);

/* Before layer l's backward GEMMs, on the main lane (ctx->stream): dZ8 (l > 0)
 * and dZ8T cast from its BF16 gradient (hidden: ReLU bits or GELU' applied),
 * its bias gradient's partial sums; nothing where the loss kernel cast it. */
int mlp_fp8_cast_gradient(mlp *net, gpu_context *ctx, int l, int n);

/* After the backward: the tiles for SGD's bias sums; a calibrating pass
 * rolls the histories it started. On ctx->stream. */
int mlp_fp8_end_backward(mlp *net, gpu_context *ctx, int n);

/* mlp_update in FP8: one SGD pass over `slabs` (sgd_fp8.h) on ctx->stream. */
int mlp_fp8_update(mlp *net, gpu_context *ctx, const sgd_slabs *slabs,
                   const float *d_lr, float momentum);

/* The cast of a BF16 (rows, n) matrix d_src, ld lt_ld(rows), into FP8 `out` (ld
 * lt_ld_fp8(rows)) and `out_t` (ld lt_ld_fp8(n)) at `delayed_scale` (NULL:
 * current scaling); set src_type for FP32 (master weights: mlp_fp8_reset). */
fp8_cast_args mlp_fp8_cast_of(const void *d_src, int rows, int n, uint8_t *out,
                              uint8_t *out_t, fp8_meta *meta,
                              const float *delayed_scale, lt_fp8 format);

/* For tests and reports. */

/* 1 when layer l's forward writes FP8 under `mode`. */
int mlp_fp8_writes_fp8(const mlp *net, int l, mlp_mode mode);

/* meta[0 .. 3 depth) = training state, role-major (syncs ctx->stream): 0/-1. */
int mlp_fp8_read_meta(const mlp *net, gpu_context *ctx, fp8_meta *meta);

#ifdef __cplusplus
}
#endif

#endif
