/* linear.c: a fully connected layer on the one cuBLASLt wrapper. Each call
 * is written out with its shapes (DESIGN.md section 3); the unfused mode
 * makes the same calls through lt_matmul_unfused. */
#include "linear.h"

#include "../gpu/lt_matmul.h"
#include "../gpu/lt_unfused.h"

static int matmul(gpu_context *ctx, int lane, const lt_matmul_call *call,
                  mlp_mode mode) {
  return mode == MLP_MODE_FUSED ? lt_matmul_on(ctx, lane, call)
                                : lt_matmul_unfused_on(ctx, lane, call);
}

int linear_forward(gpu_context *ctx, linear_layer *layer, const float *d_x,
                   int n, mlp_mode mode) {
  /* Y (out, n) = op(Wt) (out, in) * X (in, n) + b, ReLU on hidden layers:
   * m = out, n = n, k = in; A = Wt stored (in, out), transposed; B = X
   * (in, n). RELU_AUX_BIAS also writes the ReLU bits into d_mask. */
  lt_matmul_call call = {
      .m = layer->out, .n = n, .k = layer->in,
      .transa = 1, .transb = 0,
      .d_a = layer->d_wt, .lda = layer->in,
      .d_b = d_x, .ldb = layer->in,
      .d_d = layer->d_y, .ldd = layer->out,
      .epilogue = layer->relu ? LT_EPILOGUE_RELU_AUX_BIAS : LT_EPILOGUE_BIAS,
      .d_bias = layer->d_b,
      .d_aux = layer->relu ? layer->d_mask : NULL,
      .aux_ld = layer->relu ? layer->aux_ld : 0,
  };
  return matmul(ctx, GPU_LANE_MAIN, &call, mode);
}

int linear_backward_data(gpu_context *ctx, int lane, const linear_layer *layer,
                         linear_layer *below, int n, mlp_mode mode) {
  /* dZ_below (in, n) = Wt (in, out) * dZ (out, n): m = in, n = n, k = out;
   * both operands untransposed. DRELU_BGRAD masks with the bits the layer
   * below saved (same n, same aux_ld) and writes that layer's bias
   * gradient db_below[in]. */
  lt_matmul_call data = {
      .m = layer->in, .n = n, .k = layer->out,
      .transa = 0, .transb = 0,
      .d_a = layer->d_wt, .lda = layer->in,
      .d_b = layer->d_dz, .ldb = layer->out,
      .d_d = below->d_dz, .ldd = layer->in,
      .epilogue = LT_EPILOGUE_DRELU_BGRAD,
      .d_bias = below->d_db,
      .d_aux = below->d_mask, .aux_ld = below->aux_ld,
  };
  return matmul(ctx, lane, &data, mode);
}

int linear_backward_weights(gpu_context *ctx, int lane, linear_layer *layer,
                            const float *d_x, int n, mlp_mode mode) {
  /* dWt (in, out) = X (in, n) * dZ^T (n, out): m = in, n = out, k = n;
   * B = dZ stored (out, n), transposed. The output layer's bias gradient
   * rides along: BGRADB sums op(B) over k into db[out] (BGRADB needs
   * transb = T, which this layout has). A hidden layer's db came from the
   * DRELU_BGRAD of the layer above, so its call is a plain DEFAULT. */
  int bias_here = !layer->relu;
  lt_matmul_call weights = {
      .m = layer->in, .n = layer->out, .k = n,
      .transa = 0, .transb = 1,
      .d_a = d_x, .lda = layer->in,
      .d_b = layer->d_dz, .ldb = layer->out,
      .d_d = layer->d_dwt, .ldd = layer->in,
      .epilogue = bias_here ? LT_EPILOGUE_BGRADB : LT_EPILOGUE_DEFAULT,
      .d_bias = bias_here ? layer->d_db : NULL,
  };
  return matmul(ctx, lane, &weights, mode);
}
