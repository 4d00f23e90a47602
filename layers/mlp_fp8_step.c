/* mlp_fp8_step.c: the FP8 step itself (mlp_fp8.h): the casts of inputs
 * and gradients, the forward, backward and update. */
#include "gpu/gpu_check.h"
#include "layers/mlp_fp8_calls.h"
#include "layers/sgd_fp8.h"

/* Layer l's input (in, n) BF16 -> X8 for an FP8 forward, X8T for an FP8
 * weight gradient (a training network). */
/* Current scaling for inputs and gradients: asked, or no history yet. */
static int cast_current(const mlp_fp8 *f) {
  return f->recipe.current || !f->calibrated;
}

static int cast_input(mlp *net, gpu_context *ctx, const void *d_x, int l,
                      int n) {
  const linear_layer *layer = &net->layers[l];
  mlp_fp8 *f = net->fp8;
  int transposed = mlp_fp8_weights_fit(net, l, n);
  if (!f->fp8[l][MLP_FP8_CALL_FORWARD] && !transposed) return 0;
  fp8_cast_args a = {.src_type = LT_DTYPE_BF16,
                     .d_src = mlp_fp8_input(net, d_x, l),
                     .ld_src = lt_ld(layer->in),
                     .rows = layer->in,
                     .cols = n,
                     .d_out = f->fp8[l][MLP_FP8_CALL_FORWARD] ? f->x8[l] : NULL,
                     .ld_out = lt_ld_fp8(layer->in),
                     .d_out_t = transposed ? f->x8t[l] : NULL,
                     .ld_out_t = lt_ld_fp8(n),
                     .d_meta = mlp_fp8_meta(net, l, MLP_FP8_INPUT),
                     .format = FP8_FORMAT_E4M3,
                     .current = cast_current(f)};
  return fp8_cast(&a, &ctx->early, ctx->stream);
}

int mlp_fp8_forward(mlp *net, gpu_context *ctx, const void *d_x, int n,
                    mlp_mode mode) {
  mlp_fp8_decide(net, ctx, n, 0);
  for (int l = 0; l < net->layout.depth; l++) {
    if (cast_input(net, ctx, d_x, l, n) != 0) return -1;
    if (!net->fp8->fp8[l][MLP_FP8_CALL_FORWARD]) {
      if (linear_forward(ctx, &net->layers[l], mlp_fp8_input(net, d_x, l), n,
                         mode) != 0)
        return -1;
      continue;
    }
    lt_matmul_call call = mlp_fp8_forward_call(net, l, n);
    if (linear_matmul(ctx, GPU_LANE_MAIN, &call, mode) != 0) return -1;
  }
  return 0;
}

int mlp_fp8_masks_in_place(const mlp *net, int l) {
  const mlp_fp8 *f = net->fp8;
  return l + 1 < net->layout.depth &&
         (!f->fp8[l][MLP_FP8_CALL_WEIGHTS] ||
          (l > 0 && !f->fp8[l][MLP_FP8_CALL_DATA]));
}

/* Layer l's gradient dZ (out, n) BF16 -> dZ8 (for an FP8 data gradient)
 * and dZ8T (for an FP8 weight gradient) and the bias gradient's partials;
 * a hidden layer's dZ is the data GEMM's raw output, masked (ReLU) or
 * multiplied by GELU' on the way, and written back masked where a BF16
 * call reads it. */
static int cast_gradient(mlp *net, gpu_context *ctx, int l, int n) {
  const linear_layer *layer = &net->layers[l];
  mlp_fp8 *f = net->fp8;
  int above = l + 1 < net->layout.depth;
  int data8 = l > 0 && f->fp8[l][MLP_FP8_CALL_DATA],
      weights8 = f->fp8[l][MLP_FP8_CALL_WEIGHTS];
  fp8_cast_args a = {
      .src_type = LT_DTYPE_BF16,
      .d_src = layer->d_dz,
      .ld_src = lt_ld(layer->out),
      .rows = layer->out,
      .cols = n,
      .mask = !above                                    ? FP8_MASK_NONE
              : layer->activation == LT_ACTIVATION_GELU ? FP8_MASK_GELU
                                                        : FP8_MASK_RELU,
      .d_aux = above ? layer->d_aux : NULL,
      .aux_ld = layer->activation == LT_ACTIVATION_GELU ? lt_ld(layer->out)
                                                        : lt_aux_ld(layer->out),
      .d_masked = mlp_fp8_masks_in_place(net, l) ? layer->d_dz : NULL,
      .d_out = data8 ? f->dz8[l] : NULL,
      .ld_out = lt_ld_fp8(layer->out),
      .d_out_t = weights8 ? f->dz8t[l] : NULL,
      .ld_out_t = lt_ld_fp8(n),
      .d_partials = f->partials[l],
      .d_meta = mlp_fp8_meta(net, l, MLP_FP8_GRADIENT),
      .format = f->grad_format,
      .current = cast_current(f)};
  return fp8_cast(&a, &ctx->early, ctx->stream);
}

/* Side lane: layer l's weight gradient and bias gradient. */
static int layer_weights(mlp *net, gpu_context *ctx, const void *d_x, int l,
                         int n) {
  linear_layer *layer = &net->layers[l];
  lt_matmul_call call =
      net->fp8->fp8[l][MLP_FP8_CALL_WEIGHTS]
          ? mlp_fp8_weights_call(net, l, n)
          : mlp_fp8_weights_call_bf16(net, l, n, mlp_fp8_input(net, d_x, l));
  if (linear_matmul(ctx, GPU_LANE_SIDE, &call, MLP_MODE_FUSED) != 0) return -1;
  return fp8_bias_grad(layer->d_db, net->fp8->partials[l], layer->out,
                       fp8_cast_tiles(n), ctx->side_stream);
}

int mlp_fp8_backward(mlp *net, gpu_context *ctx, const void *d_x, int n) {
  mlp_fp8_decide(net, ctx, n, 1);
  for (int l = net->layout.depth - 1; l >= 0; l--) {
    if (cast_gradient(net, ctx, l, n) != 0) return -1;
    CUDA_CHECK(cudaEventRecord(net->dz_ready[l], ctx->stream));
    CUDA_CHECK(cudaStreamWaitEvent(ctx->side_stream, net->dz_ready[l], 0));
    if (layer_weights(net, ctx, d_x, l, n) != 0) return -1;
    if (l == 0) break;
    lt_matmul_call call = net->fp8->fp8[l][MLP_FP8_CALL_DATA]
                              ? mlp_fp8_data_call(net, l, n)
                              : mlp_fp8_data_call_bf16(net, l, n);
    if (linear_matmul(ctx, GPU_LANE_MAIN, &call, MLP_MODE_FUSED) != 0)
      return -1;
  }
  CUDA_CHECK(cudaEventRecord(net->weights_done, ctx->side_stream));
  CUDA_CHECK(cudaStreamWaitEvent(ctx->stream, net->weights_done, 0));
  mlp_fp8 *f = net->fp8;
  if (f->calibrated) return 0;
  /* The first training pass cast with current scaling: its amax values
   * start the histories that delayed scaling reads from now on. */
  f->calibrated = 1;
  return fp8_scales_roll(f->d_meta, 3 * net->layout.depth, f->d_step,
                         ctx->stream);
}

/* W8 (and W8T above the first layer) from the master weights, each scaled
 * by its own amax (an amax pass first), which then starts its history. */
int mlp_fp8_weights_init(mlp *net, gpu_context *ctx) {
  mlp_fp8 *f = net->fp8;
  for (int l = 0; l < net->layout.depth; l++) {
    const linear_layer *layer = &net->layers[l];
    fp8_cast_args a = {.src_type = LT_DTYPE_F32,
                       .d_src = net->d_params + net->layout.w_offset[l],
                       .ld_src = lt_ld(net->layout.widths[l]),
                       .rows = layer->in,
                       .cols = layer->out,
                       .d_out = f->w8[l],
                       .ld_out = lt_ld_fp8(layer->in),
                       .d_out_t = f->w8t[l],
                       .ld_out_t = lt_ld_fp8(layer->out),
                       .d_meta = mlp_fp8_meta(net, l, MLP_FP8_WEIGHTS),
                       .format = FP8_FORMAT_E4M3,
                       .current = 1};
    if (fp8_cast(&a, &ctx->early, ctx->stream) != 0) return -1;
  }
  return fp8_scales_roll(f->d_meta, 3 * net->layout.depth, f->d_step,
                         ctx->stream);
}

int mlp_fp8_update(mlp *net, gpu_context *ctx, const float *d_lr,
                   float momentum) {
  mlp_fp8 *f = net->fp8;
  const mlp_layout *lay = &net->layout;
  sgd_fp8_args a = {.slabs = f->slabs,
                    .copy_weights = f->copy_weights,
                    .matrices = lay->depth,
                    .vectors = lay->depth};
  for (int l = 0; l < lay->depth; l++) {
    const linear_layer *layer = &net->layers[l];
    a.m[l] = (sgd_fp8_matrix){.offset = lay->w_offset[l],
                              .ld = lt_ld(lay->widths[l]),
                              .rows = layer->in,
                              .cols = layer->out,
                              .d_w8 = f->w8[l],
                              .ld_w8 = lt_ld_fp8(layer->in),
                              .d_w8t = f->w8t[l],
                              .ld_w8t = lt_ld_fp8(layer->out),
                              .d_meta = mlp_fp8_meta(net, l, MLP_FP8_WEIGHTS)};
    a.v[l] = (sgd_fp8_vector){.offset = lay->b_offset[l], .length = layer->out};
  }
  if (sgd_fp8_update(&a, d_lr, momentum, 1.0f / net->loss_scale, &ctx->early,
                     ctx->stream) != 0)
    return -1;
  return fp8_scales_roll(f->d_meta, 3 * lay->depth, f->d_step, ctx->stream);
}
