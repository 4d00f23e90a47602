/* linear.c: a fully connected layer on the one cuBLASLt wrapper. The
 * shapes of its three calls come from lt/lt_shape.h (written out there),
 * their FP8 forms from here; this file supplies the buffers. The unfused
 * mode makes the same calls through lt_matmul_unfused. */
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

lt_shape linear_shape_forward_fp8(int in, int out, int n, int hidden,
                                  lt_fp8 d) {
  lt_shape s = lt_shape_forward(in, out, n, hidden);
  s.type = LT_DTYPE_BF16;
  s.lda = s.ldb = lt_ld_fp8(in);
  s.a_fp8 = s.b_fp8 = LT_FP8_E4M3;
  s.d_fp8 = d;
  if (d) s.ldd = lt_ld_fp8(out);
  return s;
}

lt_shape linear_shape_data_fp8(int in, int out, int n, lt_fp8 gradient) {
  lt_shape s = {.type = LT_DTYPE_BF16,
                .m = in,
                .n = n,
                .k = out,
                .transa = 1,
                .transb = 0,
                .lda = lt_ld_fp8(out),
                .ldb = lt_ld_fp8(out),
                .ldd = lt_ld(in),
                .epilogue = LT_EPILOGUE_DEFAULT,
                .a_fp8 = LT_FP8_E4M3,
                .b_fp8 = gradient};
  return s;
}

lt_shape linear_shape_weights_fp8(int in, int out, int n, lt_fp8 gradient) {
  lt_shape s = {.type = LT_DTYPE_BF16,
                .m = in,
                .n = out,
                .k = lt_ld_fp8(n),
                .transa = 1,
                .transb = 0,
                .lda = lt_ld_fp8(n),
                .ldb = lt_ld_fp8(n),
                .ldd = lt_ld(in),
                .epilogue = LT_EPILOGUE_DEFAULT,
                .a_fp8 = LT_FP8_E4M3,
                .b_fp8 = gradient};
  return s;
}

/* `call` on FP8 operands: `shape`, A and B with their scale_inv; the bias
 * gradient and the masks the BF16 backward's epilogues used go (the
 * casts apply them). */
static lt_matmul_call on_fp8(lt_matmul_call call, lt_shape shape, int fast,
                             const uint8_t *a, const float *a_scale_inv,
                             const uint8_t *b, const float *b_scale_inv) {
  call.shape = shape;
  call.shape.fast_accum = fast;
  call.d_a = a;
  call.d_b = b;
  call.d_a_scale = a_scale_inv;
  call.d_b_scale = b_scale_inv;
  call.d_bias_grad = NULL;
  if (!lt_epilogue_uses_aux(shape.epilogue)) call.d_aux = NULL;
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
  call = typed(call, layer, 0, n);
  const linear_fp8 *f = &layer->fp8;
  if (!f->on) return call;
  /* Y (out, n) = W8^T X8 + b: the same epilogue on the FP8 operands, D in
   * E4M3 (the next layer's X8) where y8 is set, its C the BF16 Y. */
  call = on_fp8(call,
                lt_shape_activation(linear_shape_forward_fp8(
                                        layer->in, layer->out, n, layer->hidden,
                                        f->y8 ? LT_FP8_E4M3 : LT_FP8_NONE),
                                    layer->activation),
                f->fast_forward, f->w8, f->w_scale_inv, f->x8, f->x_scale_inv);
  if (!f->y8) return call;
  call.d_c = layer->d_y;
  call.d_d = f->y8;
  call.d_d_scale = f->y_scale;
  call.d_amax_d = f->y_amax;
  return call;
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
  call = typed(call, layer, 1, n);
  const linear_fp8 *f = &layer->fp8;
  if (!f->on) return call;
  /* dZ_below (in, n) = W8T^T dZ8, raw: the mask and the bias gradient are
   * applied by the cast of dZ_below (cuBLASLt has no FP8 DRELU_BGRAD). */
  return on_fp8(
      call, linear_shape_data_fp8(layer->in, layer->out, n, f->gradient),
      f->fast_backward, f->w8t, f->w_scale_inv, f->dz8, f->dz_scale_inv);
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
  call = typed(call, layer, 2, n);
  const linear_fp8 *f = &layer->fp8;
  if (!f->on) return call;
  /* dWt (in, out) = X8T^T dZ8T over the batch padded to 16 (the padding
   * rows of both zero); every bias gradient is the casts'. */
  return on_fp8(
      call, linear_shape_weights_fp8(layer->in, layer->out, n, f->gradient),
      f->fast_backward, f->x8t, f->x_scale_inv, f->dz8t, f->dz_scale_inv);
}

int linear_matmul(gpu_context *ctx, int lane, const lt_matmul_call *call,
                  mlp_mode mode) {
  /* A call writing FP8 has one way: the unfused twin's kernels work on D
   * in the storage type (lt_unfused.h), so auto runs it fused (and the
   * FP8 step gives --mode unfused its BF16 D: mlp_fp8.h). */
  if (mode == MLP_MODE_AUTO && call->shape.d_fp8) mode = MLP_MODE_FUSED;
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
