/* linear.h: one fully connected layer, forward and backward, fused
 * (cuBLASLt epilogues), unfused (plain matmul + one kernel per epilogue
 * step), or auto (the fastest way per call, lt/lt_auto.h). All modes
 * compute the same numbers up to summation order. Each call's shape comes from
 * the builders in lt/lt_shape.h, the same ones the oracle (oracle.h) uses.
 *
 * The layer does not own memory: its pointers are views into the MLP's
 * slabs and activation buffers (layers/mlp.c).
 */
#ifndef MNIST_EPILOGS_LINEAR_H
#define MNIST_EPILOGS_LINEAR_H

#include <stdint.h>

#include "gpu/gpu_context.h"
#include "layers/mlp_mode.h"
#include "lt/lt_matmul.h"

/* A layer's FP8 operands for one pass (layers/mlp_fp8.h fills them; the
 * FP8 step: docs/backprop.md section 12). With `on`, the three call
 * builders below make the same calls on FP8 operands in the TN layout
 * cuBLASLt's FP8 GEMMs need, each from the call they make otherwise: the
 * forward reads W8 and X8 (and writes its output in E4M3 where y8 is set:
 * an FP8 D, the next layer's X8); the data gradient reads W8T and dZ8 and
 * writes the raw product (DEFAULT: cuBLASLt has no FP8 DRELU_BGRAD; the
 * mask and bias gradient are the casts'); the weight gradient reads X8T
 * and dZ8T with k the batch rounded up to 16 (their padding rows zero)
 * and writes dWt (DEFAULT). Every pointer is 16-byte aligned; each scale
 * pointer is a float on the device (fp8_meta.scale_inv, or .scale for
 * y_scale). */
typedef struct linear_fp8 {
  int on;
  lt_fp8 gradient;                 /* dZ8's format: E5M2 (hybrid) or E4M3 */
  int fast_forward, fast_backward; /* FAST_ACCUM of the forward, and of the
                                      two backward GEMMs */
  const uint8_t *w8;               /* (in, out), ld lt_ld_fp8(in) */
  const uint8_t *w8t; /* (out, in), ld lt_ld_fp8(out); NULL in layer 0 */
  const float *w_scale_inv;
  const uint8_t *x8;  /* (in, n), ld lt_ld_fp8(in): the input */
  const uint8_t *x8t; /* (lt_ld_fp8(n), in), ld lt_ld_fp8(n) */
  const float *x_scale_inv;
  const uint8_t *dz8;  /* (out, n), ld lt_ld_fp8(out); NULL in layer 0 */
  const uint8_t *dz8t; /* (lt_ld_fp8(n), out), ld lt_ld_fp8(n) */
  const float *dz_scale_inv;
  uint8_t *y8; /* NULL, or (out, n) E4M3, ld lt_ld_fp8(out): the output */
  const float *y_scale; /* with y8: the scale it is written with */
  float *y_amax;        /* with y8: where the GEMM writes its amax */
} linear_fp8;

/* Every matrix and vector below has the element type `type` (FP32, or BF16
 * / FP16 in mixed precision: then d_wt and d_b are the 16-bit copies the
 * SGD kernel writes of the FP32 master weights, layers/mlp.h). Leading
 * dimensions are lt_ld of the row count (lt/lt_shape.h). */
typedef struct linear_layer {
  int in, out;
  int hidden; /* 1 for hidden layers (activation after the bias), 0 for
                the output layer */
  lt_activation activation; /* of hidden layers: ReLU or GELU */
  lt_dtype type;
  void *d_wt;        /* Wt (in, out), ld lt_ld(in) = W[out][in] row-major */
  void *d_b;         /* [out] */
  void *d_dwt;       /* (in, out), ld lt_ld(in): gradient of d_wt */
  void *d_db;        /* [out] */
  void *d_y;         /* (out, max_batch), ld lt_ld(out): ReLU output, or
                        logits */
  void *d_dz;        /* (out, max_batch), ld lt_ld(out): loss gradient at
                        the pre-activation (after the ReLU mask) */
  void *d_aux;       /* hidden layers: what the forward epilogue saves for the
                       backward one: the ReLU bit-mask (aux_ld / 8, max_batch)
                       bytes, or the GELU input (out, max_batch) in `type`,
                       ld lt_ld(out) */
  float *d_partials; /* hidden layers of a training network: the row sums'
                        partials of this layer's d_db when the unfused
                        DRELU_BGRAD above adds them on the side lane
                        (GPU_CHAIN_SIDE_PARTIALS; lt_row_sums_scratch_bound
                        bytes for max_batch); else NULL */
  linear_fp8 fp8;    /* zero unless the layer runs on FP8 operands */
  /* How the layer's three calls run (lt_pick; zero: the heuristic's first
   * choice), indexed forward 0, data gradient 1, weight gradient 2 (the
   * order of mlp_call_kind, layers/mlp.h), as the step tuner chose them
   * at batch picks_n (train/step_tune.h). The calls below copy them: the
   * way at any batch, the algorithms only at picks_n, since they index the
   * candidates of that batch's plans. */
  lt_pick picks[3];
  int picks_n;
} linear_layer;

/* d_y (out, n) = [ReLU](Wt^T x + b), saving the ReLU mask: one call with
 * RELU_AUX_BIAS (hidden) or BIAS (output) on the main lane (lt_shape_forward).
 * d_x is (in, n) col-major, ld lt_ld(in). */
int linear_forward(gpu_context *ctx, linear_layer *layer, const void *d_x,
                   int n, mlp_mode mode);

/* Backward, data part, on `lane`: below->d_dz (in, n) = (Wt dz) masked by
 * below's ReLU bits, and below->d_db = its sum over the batch: one call
 * with DRELU_BGRAD (lt_shape_backward_data). Reads layer->d_dz (out, n).
 * Under GPU_CHAIN_SIDE_PARTIALS (ctx->options.chain) on the main lane, an
 * unfused call (or --mode auto's split way, lt/lt_split.h) finishes
 * below->d_db on the side lane (below->d_partials): join the side lane
 * before reading it. */
int linear_backward_data(gpu_context *ctx, int lane, const linear_layer *layer,
                         linear_layer *below, int n, mlp_mode mode);

/* Backward, weight part, on `lane`: d_dwt (in, out) = x dz^T from
 * layer->d_dz and the layer's input d_x (in, n); for the output layer
 * (hidden == 0) also d_db = the batch sum of dz (BGRADB). A hidden layer's
 * d_db comes from linear_backward_data of the layer above. All written
 * (lt_shape_backward_weights). */
int linear_backward_weights(gpu_context *ctx, int lane, linear_layer *layer,
                            const void *d_x, int n, mlp_mode mode);

/* One call on `lane` the way `mode` says: fused (lt_matmul_on), unfused
 * (lt_matmul_unfused_on) or auto (lt_matmul_auto_on). */
int linear_matmul(gpu_context *ctx, int lane, const lt_matmul_call *call,
                  mlp_mode mode);

/* The calls the three functions above make, built but not launched: shape
 * (in the layer's type, with its activation's epilogues; FP8 operands
 * where layer->fp8.on, d_x then unused) and buffers. For tools that time
 * or inspect one call (mnist_bench). */
lt_matmul_call linear_forward_call(const linear_layer *layer, const void *d_x,
                                   int n);
lt_matmul_call linear_backward_data_call(const linear_layer *layer,
                                         const linear_layer *below, int n);
lt_matmul_call linear_backward_weights_call(const linear_layer *layer,
                                            const void *d_x, int n);

/* The FP8 forms of the three calls' shapes (BF16 `type`, the layer's
 * widths multiples of 16): the forward (lt_shape_forward's m, n, k and
 * epilogue; A = W8, B = X8, both E4M3, lda = ldb = lt_ld_fp8(in)) with D
 * in `d` (LT_FP8_NONE: BF16, ldd lt_ld(out); E4M3: ldd lt_ld_fp8(out));
 * the data gradient (dX (in, n) = W8T^T dZ8, DEFAULT); the weight
 * gradient (dWt (in, out) = X8T^T dZ8T, k = lt_ld_fp8(n), DEFAULT). */
lt_shape linear_shape_forward_fp8(int in, int out, int n, int hidden, lt_fp8 d);
lt_shape linear_shape_data_fp8(int in, int out, int n, lt_fp8 gradient);
lt_shape linear_shape_weights_fp8(int in, int out, int n, lt_fp8 gradient);

#endif
