/* linear.c: a fully connected layer on the one cuBLASLt wrapper. The
 * shapes of its three calls come from lt/lt_shape.h (written out there);
 * this file supplies the buffers. The unfused mode makes the same calls
 * through lt_matmul_unfused. */
#include "layers/linear.h"

#include "lt/lt_auto.h"
#include "lt/lt_matmul.h"
#include "lt/lt_unfused.h"

/* The call's shape in the layer's storage type, with its activation's
 * epilogues (ReLU or GELU), and the layer's pick for call `kind` (the
 * order of linear_layer.picks) at batch n. */
static lt_matmul_call typed(lt_matmul_call call, const linear_layer *layer,
                            int kind, int n) {
  call.shape.type = layer->type;
  call.shape = lt_shape_activation(call.shape, layer->activation);
  call.pick = layer->picks[kind];
  if (n != layer->picks_n)
    call.pick.algo = call.pick.plain = call.pick.split = 0;
  return call;
}

lt_matmul_call linear_forward_call(const linear_layer *layer, const void *d_x,
                                   int n) {
  /* Y (out, n) = op(Wt) X + b [ReLU]: A = Wt (in, out) transposed, B = X
   * (in, n); RELU_AUX_BIAS also writes the ReLU bits into d_aux
   * (GELU_AUX_BIAS: the GELU input). */
  lt_matmul_call call = {
      .shape = lt_shape_forward(layer->in, layer->out, n, layer->hidden),
      .d_a = layer->d_wt,
      .d_b = d_x,
      .d_d = layer->d_y,
      .d_bias = layer->d_b,
      .d_aux = layer->hidden ? layer->d_aux : NULL,
  };
  return typed(call, layer, 0, n);
}

lt_matmul_call linear_backward_data_call(const linear_layer *layer,
                                         const linear_layer *below, int n) {
  /* dZ_below (in, n) = Wt (in, out) dZ (out, n), masked by the bits the
   * layer below saved in its forward call (same n, same aux_ld), and that
   * layer's bias gradient db_below[in]. */
  lt_matmul_call call = {
      .shape = lt_shape_backward_data(layer->in, layer->out, n),
      .d_a = layer->d_wt,
      .d_b = layer->d_dz,
      .d_d = below->d_dz,
      .d_bias_grad = below->d_db,
      .d_aux = below->d_aux,
  };
  return typed(call, layer, 1, n);
}

lt_matmul_call linear_backward_weights_call(const linear_layer *layer,
                                            const void *d_x, int n) {
  /* dWt (in, out) = X (in, n) dZ^T: B = dZ stored (out, n), transposed.
   * The output layer's bias gradient rides along (BGRADB sums op(B) over
   * the batch); a hidden layer's came from the DRELU_BGRAD above. */
  int bias_here = !layer->hidden;
  lt_matmul_call call = {
      .shape = lt_shape_backward_weights(layer->in, layer->out, n, bias_here),
      .d_a = d_x,
      .d_b = layer->d_dz,
      .d_d = layer->d_dwt,
      .d_bias_grad = bias_here ? layer->d_db : NULL,
  };
  return typed(call, layer, 2, n);
}

int linear_matmul(gpu_context *ctx, int lane, const lt_matmul_call *call,
                  mlp_mode mode) {
  switch (mode) {
  case MLP_MODE_UNFUSED: return lt_matmul_unfused_on(ctx, lane, call);
  case MLP_MODE_AUTO: return lt_matmul_auto_on(ctx, lane, call);
  default: return lt_matmul_on(ctx, lane, call);
  }
}

int linear_forward(gpu_context *ctx, linear_layer *layer, const void *d_x,
                   int n, mlp_mode mode) {
  lt_matmul_call call = linear_forward_call(layer, d_x, n);
  return linear_matmul(ctx, GPU_LANE_MAIN, &call, mode);
}

int linear_backward_data(gpu_context *ctx, int lane, const linear_layer *layer,
                         linear_layer *below, int n, mlp_mode mode) {
  lt_matmul_call call = linear_backward_data_call(layer, below, n);
  if (ctx->options.chain & GPU_CHAIN_SIDE_PARTIALS)
    call.d_partials = below->d_partials;
  return linear_matmul(ctx, lane, &call, mode);
}

int linear_backward_weights(gpu_context *ctx, int lane, linear_layer *layer,
                            const void *d_x, int n, mlp_mode mode) {
  lt_matmul_call call = linear_backward_weights_call(layer, d_x, n);
  return linear_matmul(ctx, lane, &call, mode);
}
