/* mlp_fp8_calls.c: the FP8 step's matmul calls and the choice between
 * FP8 and BF16 per call (mlp_fp8_calls.h). */
#include <stdio.h>

#include "layers/mlp_fp8_calls.h"
#include "layers/sgd.h"
#include "lt/lt_matmul.h"

/* The fp8 format of activations and weights, and of gradients. */
static lt_fp8 lt_format(fp8_format format) {
  return format == FP8_FORMAT_E5M2 ? LT_FP8_E5M2 : LT_FP8_E4M3;
}

/* The FP8 calls of layer l for batch n (buffers and scales). */
lt_matmul_call mlp_fp8_forward_call(const mlp *net, int l, int n) {
  const linear_layer *layer = &net->layers[l];
  lt_matmul_call c = {
      .shape = lt_shape_activation(
          lt_shape_forward_fp8(layer->in, layer->out, n, layer->hidden,
                               LT_FP8_E4M3, LT_FP8_E4M3),
          layer->activation),
      .d_a = net->fp8->w8[l],
      .d_b = net->fp8->x8[l],
      .d_d = layer->d_y,
      .d_bias = layer->d_b,
      .d_aux = layer->hidden ? layer->d_aux : NULL,
      .d_a_scale = &mlp_fp8_meta(net, l, MLP_FP8_WEIGHTS)->scale_inv,
      .d_b_scale = &mlp_fp8_meta(net, l, MLP_FP8_INPUT)->scale_inv};
  c.shape.fast_accum = net->fp8->recipe.fast_accum != 2;
  return c;
}

lt_matmul_call mlp_fp8_data_call(const mlp *net, int l, int n) {
  const linear_layer *layer = &net->layers[l];
  lt_matmul_call c = {
      .shape = lt_shape_backward_data_fp8(layer->in, layer->out, n, LT_FP8_E4M3,
                                          lt_format(net->fp8->grad_format)),
      .d_a = net->fp8->w8t[l],
      .d_b = net->fp8->dz8[l],
      .d_d = net->layers[l - 1].d_dz,
      .d_a_scale = &mlp_fp8_meta(net, l, MLP_FP8_WEIGHTS)->scale_inv,
      .d_b_scale = &mlp_fp8_meta(net, l, MLP_FP8_GRADIENT)->scale_inv};
  c.shape.fast_accum = net->fp8->recipe.fast_accum == 1;
  return c;
}

lt_matmul_call mlp_fp8_weights_call(const mlp *net, int l, int n) {
  const linear_layer *layer = &net->layers[l];
  lt_matmul_call c = {
      .shape =
          lt_shape_backward_weights_fp8(layer->in, layer->out, n, LT_FP8_E4M3,
                                        lt_format(net->fp8->grad_format)),
      .d_a = net->fp8->x8t[l],
      .d_b = net->fp8->dz8t[l],
      .d_d = layer->d_dwt,
      .d_a_scale = &mlp_fp8_meta(net, l, MLP_FP8_INPUT)->scale_inv,
      .d_b_scale = &mlp_fp8_meta(net, l, MLP_FP8_GRADIENT)->scale_inv};
  c.shape.fast_accum = net->fp8->recipe.fast_accum == 1;
  return c;
}

/* The BF16 stand-ins: the same products from the BF16 buffers (the weight
 * copy SGD writes, the BF16 input and the masked BF16 gradient). */
lt_matmul_call mlp_fp8_data_call_bf16(const mlp *net, int l, int n) {
  const linear_layer *layer = &net->layers[l];
  lt_matmul_call c = {.shape = lt_shape_backward_data(layer->in, layer->out, n),
                      .d_a = layer->d_wt,
                      .d_b = layer->d_dz,
                      .d_d = net->layers[l - 1].d_dz};
  c.shape.type = LT_DTYPE_BF16;
  c.shape.epilogue = LT_EPILOGUE_DEFAULT;
  c.shape.aux_ld = 0;
  return c;
}

lt_matmul_call mlp_fp8_weights_call_bf16(const mlp *net, int l, int n,
                                         const void *input) {
  const linear_layer *layer = &net->layers[l];
  lt_matmul_call c = {
      .shape = lt_shape_backward_weights(layer->in, layer->out, n, 0),
      .d_a = input,
      .d_b = layer->d_dz,
      .d_d = layer->d_dwt};
  c.shape.type = LT_DTYPE_BF16;
  return c;
}

static const char *const call_names[MLP_FP8_CALLS] = {
    "forward", "data gradient", "weight gradient"};

/* Decides which of every layer's forward calls (backward = 0) or backward
 * calls (backward = 1) run in FP8 at batch n (mlp_fp8_calls.h). */
static void decide_calls(mlp *net, gpu_context *ctx, int n, int backward) {
  mlp_fp8 *f = net->fp8;
  for (int l = 0; l < net->layout.depth; l++)
    for (int k = 0; k < MLP_FP8_CALLS; k++) {
      if ((k != MLP_FP8_CALL_FORWARD) != backward) continue;
      f->fp8[l][k] = 1;
      if (k == MLP_FP8_CALL_DATA && l == 0) continue;
      lt_matmul_call call =
          k == MLP_FP8_CALL_FORWARD ? mlp_fp8_forward_call(net, l, n)
          : k == MLP_FP8_CALL_DATA  ? mlp_fp8_data_call(net, l, n)
                                    : mlp_fp8_weights_call(net, l, n);
      char why[512] = "";
      if (lt_shape_check(&call.shape, why, sizeof why) == 0 &&
          lt_matmul_plannable(ctx, &call) == 0)
        continue;
      f->fp8[l][k] = 0;
      if (k != MLP_FP8_CALL_WEIGHTS && !f->copy_weights) {
        /* The BF16 weights are stale until now: rewrite them. */
        f->copy_weights = 1;
        sgd_write_copy(&f->slabs, ctx->stream);
      }
      if (f->noted[l][k]) continue;
      f->noted[l][k] = 1;
      fprintf(stderr, "mlp: note: layer %d's %s runs in bf16 at batch %d: %s\n",
              l + 1, call_names[k], n, why[0] ? why : lt_last_error(ctx));
    }
}

void mlp_fp8_decide(mlp *net, gpu_context *ctx, int n, int backward) {
  mlp_fp8 *f = net->fp8;
  int *decided = backward ? &f->decided_backward_n : &f->decided_forward_n;
  if (*decided == n) return;
  decide_calls(net, ctx, n, backward);
  *decided = n;
}

int mlp_fp8_weights_fit(const mlp *net, int l, int n) {
  lt_matmul_call call = mlp_fp8_weights_call(net, l, n);
  char why[512];
  return !net->inference_only &&
         lt_shape_check(&call.shape, why, sizeof why) == 0;
}

int mlp_fp8_runs_fp8(const mlp *net, int l, mlp_call_kind kind) {
  int k = kind == MLP_CALL_FORWARD   ? MLP_FP8_CALL_FORWARD
          : kind == MLP_CALL_WEIGHTS ? MLP_FP8_CALL_WEIGHTS
                                     : MLP_FP8_CALL_DATA;
  return net->fp8->fp8[l][k];
}

/* A layer's input (widths[l], n), BF16: the batch or the layer below's
 * output. */
const void *mlp_fp8_input(const mlp *net, const void *d_x, int l) {
  return l == 0 ? d_x : net->layers[l - 1].d_y;
}

int mlp_fp8_step_calls(const mlp *net, const void *d_x, int n,
                       mlp_call calls[MLP_MAX_STEP_CALLS]) {
  const mlp_fp8 *f = net->fp8;
  int depth = net->layout.depth, count = 0, known = f->decided_forward_n == n,
      known_backward = f->decided_backward_n == n;
  for (int l = 0; l < depth; l++)
    calls[count++] =
        (mlp_call){known && !f->fp8[l][MLP_FP8_CALL_FORWARD]
                       ? linear_forward_call(&net->layers[l],
                                             mlp_fp8_input(net, d_x, l), n)
                       : mlp_fp8_forward_call(net, l, n),
                   MLP_CALL_FORWARD, l, GPU_LANE_MAIN};
  if (net->inference_only) return count;
  for (int l = depth - 1; l >= 0; l--) {
    calls[count++] = (mlp_call){
        known_backward && !f->fp8[l][MLP_FP8_CALL_WEIGHTS]
            ? mlp_fp8_weights_call_bf16(net, l, n, mlp_fp8_input(net, d_x, l))
            : mlp_fp8_weights_call(net, l, n),
        MLP_CALL_WEIGHTS, l, GPU_LANE_SIDE};
    if (l > 0)
      calls[count++] =
          (mlp_call){known_backward && !f->fp8[l][MLP_FP8_CALL_DATA]
                         ? mlp_fp8_data_call_bf16(net, l, n)
                         : mlp_fp8_data_call(net, l, n),
                     MLP_CALL_DATA_GRADIENT, l, GPU_LANE_MAIN};
  }
  return count;
}
