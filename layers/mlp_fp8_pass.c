/* mlp_fp8_pass.c: the FP8 step's hooks in the one forward, backward and call
 * list (mlp_fp8.h): FP8 views, casts between GEMMs, backward's end, update. */
#include <stdio.h>

#include "layers/mlp_fp8.h"
#include "layers/sgd_fp8.h"

/* Tensor `role` of layer l in the training scaling state. */
static fp8_meta *meta_of(const mlp *net, mlp_fp8_role role, int l) {
  return net->fp8_tensors->d_meta + role * net->layout.depth + l;
}

/* Delayed scaling with histories to read (else casts use their own amax). */
static int delayed(const mlp *net) {
  const mlp_fp8_tensors *f = net->fp8_tensors;
  return !f->recipe.current && f->calibrated;
}

/* 1 when layer l's forward may write FP8 (not unfused: its epilogue is BF16) */
static int may_write_fp8(const mlp *net, int l, mlp_mode mode) {
  return net->layers[l].hidden && !net->inference_only && delayed(net) &&
         mode != MLP_MODE_UNFUSED;
}

int mlp_fp8_writes_fp8(const mlp *net, int l, mlp_mode mode) {
  return may_write_fp8(net, l, mode) && net->fp8_tensors->writes_fp8[l] > 0;
}

/* The state a pass writes layer l's input into: an evaluation pass's own,
 * except where a GEMM wrote it at the training scale (amax elsewhere). */
static fp8_meta *input_meta(const mlp *net, int l, mlp_mode mode,
                            mlp_pass pass) {
  int gemm_wrote = l > 0 && mlp_fp8_writes_fp8(net, l - 1, mode);
  if (pass == MLP_PASS_EVAL && !gemm_wrote)
    return net->fp8_tensors->d_eval_meta + l;
  return meta_of(net, MLP_FP8_INPUT, l);
}

/* Layer l with its FP8 view; its output in FP8 when `writes`. */
static linear_layer layer_view(const mlp *net, int l, const void *d_x, int n,
                               mlp_mode mode, mlp_pass pass, int writes) {
  const mlp_fp8_tensors *f = net->fp8_tensors;
  linear_layer layer = net->layers[l];
  linear_fp8 *v = &layer.fp8;
  v->on = 1;
  v->gradient = fp8_recipe_gradient(&f->recipe);
  v->fast_forward = fp8_recipe_fast(&f->recipe, 1);
  v->fast_backward = fp8_recipe_fast(&f->recipe, 0);
  v->w8 = f->w8[l];
  v->w8t = f->w8t[l];
  v->w_scale_inv = &meta_of(net, MLP_FP8_WEIGHTS, l)->scale_inv;
  v->dz8 = f->dz8[l];
  v->dz8t = f->dz8t[l];
  v->dz_scale_inv = &meta_of(net, MLP_FP8_GRADIENT, l)->scale_inv;
  if (l == 0) {
    v->x8 = (const uint8_t *)d_x + MLP_FP8_BATCH_X8;
    v->x8t = (const uint8_t *)d_x + mlp_fp8_batch_x8t(layer.in, n);
    v->x_scale_inv = (const float *)d_x;
  } else {
    v->x8 = f->x8[l];
    v->x8t = f->x8t[l];
    v->x_scale_inv = &input_meta(net, l, mode, pass)->scale_inv;
  }
  if (!writes) return layer;
  v->y8 = f->x8[l + 1];
  v->y_scale = &meta_of(net, MLP_FP8_INPUT, l + 1)->scale;
  v->y_amax = pass == MLP_PASS_EVAL ? &f->d_eval_meta[l + 1].amax
                                    : &meta_of(net, MLP_FP8_INPUT, l + 1)->amax;
  return layer;
}

linear_layer mlp_fp8_layer(const mlp *net, int l, const void *d_x, int n,
                           mlp_mode mode, mlp_pass pass) {
  return layer_view(net, l, d_x, n, mode, pass,
                    mlp_fp8_writes_fp8(net, l, mode));
}

int mlp_fp8_begin_pass(mlp *net, gpu_context *ctx, const void *d_x, int n,
                       mlp_mode mode, mlp_pass pass) {
  mlp_fp8_tensors *f = net->fp8_tensors;
  if (pass == MLP_PASS_TRAIN) f->train_mode = mode;
  for (int l = 0; l < net->layout.depth; l++) {
    if (!may_write_fp8(net, l, mode) || f->writes_fp8[l]) continue;
    linear_layer layer = layer_view(net, l, d_x, n, mode, pass, 1);
    lt_matmul_call call = linear_forward_call(&layer, NULL, n);
    f->writes_fp8[l] = lt_matmul_plannable(ctx, &call) == 0 ? 1 : -1;
    if (f->writes_fp8[l] < 0)
      fprintf(stderr,
              "mlp: note: layer %d's forward writes bf16 and a cast makes "
              "its fp8 copies: cuBLASLt has no plan for its fp8 output: %s\n",
              l + 1, lt_last_error(ctx));
  }
  return 0;
}

int mlp_fp8_after_forward(mlp *net, gpu_context *ctx, int l, int n,
                          mlp_mode mode, mlp_pass pass) {
  mlp_fp8_tensors *f = net->fp8_tensors;
  const linear_layer *layer = &net->layers[l];
  int train = pass == MLP_PASS_TRAIN;
  if (!layer->hidden) return 0;
  if (mlp_fp8_writes_fp8(net, l, mode))
    return train ? fp8_transpose(f->x8t[l + 1], lt_ld_fp8(n), f->x8[l + 1],
                                 lt_ld_fp8(layer->out), layer->out, n,
                                 &ctx->early, ctx->stream)
                 : 0;
  fp8_meta *train_meta = meta_of(net, MLP_FP8_INPUT, l + 1);
  fp8_cast_args a = mlp_fp8_cast_of(
      layer->d_y, layer->out, n, f->x8[l + 1], train ? f->x8t[l + 1] : NULL,
      input_meta(net, l + 1, mode, pass),
      delayed(net) ? &train_meta->scale : NULL, LT_FP8_E4M3);
  return fp8_cast(&a, &ctx->early, ctx->stream);
}

const xent_fp8 *mlp_fp8_loss_cast(const mlp *net, xent_fp8 *out, int n) {
  const mlp_fp8_tensors *f = net->fp8_tensors;
  int top = net->layout.depth - 1;
  if (!delayed(net)) return NULL;
  fp8_meta *meta = meta_of(net, MLP_FP8_GRADIENT, top);
  *out = (xent_fp8){.d_dz8 = f->dz8[top],
                    .d_dz8t = f->dz8t[top],
                    .ld_t = lt_ld_fp8(n),
                    .d_partials = f->partials[top],
                    .d_scale = &meta->scale,
                    .d_meta = meta,
                    .format = fp8_recipe_gradient(&f->recipe),
                    .rows = net->layers[top].out};
  return out;
}

int mlp_fp8_cast_gradient(mlp *net, gpu_context *ctx, int l, int n) {
  mlp_fp8_tensors *f = net->fp8_tensors;
  const linear_layer *layer = &net->layers[l];
  int top = l == net->layout.depth - 1;
  if (top && delayed(net)) return 0; /* the loss kernel cast it */
  fp8_meta *meta = meta_of(net, MLP_FP8_GRADIENT, l);
  fp8_cast_args a = mlp_fp8_cast_of(
      layer->d_dz, layer->out, n, f->dz8[l], f->dz8t[l], meta,
      delayed(net) ? &meta->scale : NULL, fp8_recipe_gradient(&f->recipe));
  a.d_partials = f->partials[l];
  if (!top) {
    int gelu = layer->activation == LT_ACTIVATION_GELU;
    a.mask = gelu ? FP8_MASK_GELU : FP8_MASK_RELU;
    a.d_aux = layer->d_aux;
    a.aux_ld = gelu ? lt_ld(layer->out) : lt_aux_ld(layer->out);
  }
  return fp8_cast(&a, &ctx->early, ctx->stream);
}

/* The roll of every tensor of the training state. */
static fp8_roll_args roll_of(const mlp *net) {
  const mlp_fp8_tensors *f = net->fp8_tensors;
  return (fp8_roll_args){.d_meta = f->d_meta,
                         .layers = net->layout.depth,
                         .gradient = fp8_recipe_gradient(&f->recipe),
                         .d_step = f->d_step};
}

int mlp_fp8_end_backward(mlp *net, gpu_context *ctx, int n) {
  mlp_fp8_tensors *f = net->fp8_tensors;
  f->tiles = fp8_cast_tiles(n);
  if (f->calibrated || f->recipe.current) return 0;
  /* The first pass cast with current scaling; its amax starts the histories. */
  f->calibrated = 1;
  fp8_roll_args roll = roll_of(net);
  return fp8_roll(&roll, &ctx->early, ctx->stream);
}

int mlp_fp8_update(mlp *net, gpu_context *ctx, const sgd_slabs *slabs,
                   const float *d_lr, float momentum) {
  mlp_fp8_tensors *f = net->fp8_tensors;
  const mlp_layout *lay = &net->layout;
  sgd_fp8_args a = {.slabs = *slabs,
                    .matrices = lay->depth,
                    .vectors = lay->depth,
                    .roll = roll_of(net),
                    .d_finished = f->d_finished};
  for (int l = 0; l < lay->depth; l++) {
    const linear_layer *layer = &net->layers[l];
    a.m[l] = (sgd_fp8_matrix){.offset = lay->w_offset[l],
                              .ld = lt_ld(layer->in),
                              .rows = layer->in,
                              .cols = layer->out,
                              .d_w8 = f->w8[l],
                              .ld_w8 = lt_ld_fp8(layer->in),
                              .d_w8t = f->w8t[l],
                              .ld_w8t = lt_ld_fp8(layer->out),
                              .d_meta = meta_of(net, MLP_FP8_WEIGHTS, l)};
    a.v[l] = (sgd_fp8_vector){.offset = lay->b_offset[l],
                              .length = layer->out,
                              .d_partials = f->partials[l],
                              .tiles = f->tiles};
  }
  return sgd_fp8_update(&a, d_lr, momentum, 1.0f / net->loss_scale, &ctx->early,
                        ctx->stream);
}
