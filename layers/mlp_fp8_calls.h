/* mlp_fp8_calls.h: the FP8 step's own side (layers/mlp_fp8.h): the state
 * it keeps, and its matmul calls (each FP8 call, its BF16 stand-in, and the
 * decision between them), shared by mlp_fp8.c (memory), mlp_fp8_calls.c
 * (the calls) and mlp_fp8_step.c (the step). Not for callers of the
 * network. */
#ifndef MNIST_EPILOGS_MLP_FP8_CALLS_H
#define MNIST_EPILOGS_MLP_FP8_CALLS_H

#include "layers/mlp_fp8.h"
#include "lt/lt_matmul.h"

/* Which calls of a layer run in FP8 for the batch they were decided for. */
enum {
  MLP_FP8_CALL_FORWARD,
  MLP_FP8_CALL_DATA,
  MLP_FP8_CALL_WEIGHTS,
  MLP_FP8_CALLS
};

typedef struct mlp_fp8 {
  gpu_fp8_recipe recipe;
  sgd_slabs slabs;        /* the network's (mlp_sgd_slabs) */
  int copy_weights;       /* 1: a forward or data call runs in BF16, so SGD
                             keeps the BF16 weight copy current */
  fp8_format grad_format; /* E5M2 (hybrid) or E4M3 */
  void *d_block;          /* every buffer below, one allocation */
  /* layer l, in = layers[l].in, out = layers[l].out, N = max_batch: */
  uint8_t *w8[MLP_MAX_LAYERS];     /* (in, out), ld lt_ld_fp8(in) */
  uint8_t *w8t[MLP_MAX_LAYERS];    /* (out, in), ld lt_ld_fp8(out); l > 0 */
  uint8_t *x8[MLP_MAX_LAYERS];     /* (in, N), ld lt_ld_fp8(in) */
  uint8_t *x8t[MLP_MAX_LAYERS];    /* (n, in), ld lt_ld_fp8(n); training */
  uint8_t *dz8[MLP_MAX_LAYERS];    /* (out, N), ld lt_ld_fp8(out); l > 0 */
  uint8_t *dz8t[MLP_MAX_LAYERS];   /* (n, out), ld lt_ld_fp8(n) */
  float *partials[MLP_MAX_LAYERS]; /* [fp8_cast_tiles(N)][out] */
  fp8_meta *d_meta;                /* [3 depth], mlp_fp8_role order */
  uint32_t *d_step;                /* steps rolled */
  int decided_forward_n;           /* batch the forward flags below are for */
  int decided_backward_n;          /* batch the backward flags below are for */
  int calibrated; /* 1 once a training pass has seeded the amax histories:
                     until then (and always in an inference-only network)
                     inputs and gradients are cast with current scaling,
                     never with the scale 1 of an empty history */
  int fp8[MLP_MAX_LAYERS][MLP_FP8_CALLS]; /* 1: FP8, 0: BF16 stand-in */
  int noted[MLP_MAX_LAYERS]
           [MLP_FP8_CALLS]; /* a BF16 stand-in named on stderr */
} mlp_fp8;

/* Tensor `role` of layer l's scaling state. */
fp8_meta *mlp_fp8_meta(const mlp *net, int l, mlp_fp8_role role);

/* Layer l's FP8 calls for batch n (mlp_fp8.h draws them), with their
 * buffers and scale pointers. */
lt_matmul_call mlp_fp8_forward_call(const mlp *net, int l, int n);
lt_matmul_call mlp_fp8_data_call(const mlp *net, int l, int n);
lt_matmul_call mlp_fp8_weights_call(const mlp *net, int l, int n);

/* The BF16 stand-ins of the two backward calls: the same products from the
 * BF16 buffers (the weight copy, the input `input`, the gradient masked in
 * place). The forward's is linear_forward_call. */
lt_matmul_call mlp_fp8_data_call_bf16(const mlp *net, int l, int n);
lt_matmul_call mlp_fp8_weights_call_bf16(const mlp *net, int l, int n,
                                         const void *input);

/* Decides, once per batch size, which forward calls (backward = 0) or
 * backward calls (backward = 1) run in FP8 (net->fp8->fp8): those that
 * meet the FP8 rules and that cuBLASLt plans; the others run in BF16, each
 * named once on stderr with the rule it breaks. The forward pass decides
 * the forwards only, so an evaluation pass never judges backward calls at
 * its batch sizes. */
void mlp_fp8_decide(mlp *net, gpu_context *ctx, int n, int backward);

/* 1 when layer l's weight gradient at batch n meets the FP8 rules (a
 * training network), so the forward pass writes X8T for it. */
int mlp_fp8_weights_fit(const mlp *net, int l, int n);

/* Layer l's input (widths[l], n), BF16: the batch or the layer below's
 * output. */
const void *mlp_fp8_input(const mlp *net, const void *d_x, int l);

#endif
