/* mlp_step.c: the training step of the MLP: the backward pass on two lanes,
 * SGD (one slab, or per layer: GPU_CHAIN_LAYER_SGD), and the list of a
 * step's matmul calls (mlp.h). */
#include <stdio.h>

#include "gpu/gpu_check.h"
#include "gpu/lt_shape.h"
#include "layers/mlp.h"
#include "layers/sgd.h"
#include "layers/xent.h"

/* 0 for a training network; -1 with a message for an inference-only one,
 * which has no gradient or momentum to write. */
static int check_training(const mlp *net, const char *call) {
  if (!net->inference_only) return 0;
  fprintf(stderr,
          "mlp: %s: expected a training network, found an inference-only "
          "one (mlp_options.inference_only)\n",
          call);
  return -1;
}

/* The update mlp_train_step applies; NULL in mlp_backward. */
typedef struct step_update {
  const float *d_lr;
  float momentum;
} step_update;

/* Blocks of an upper layer's update on the side lane (GPU_CHAIN_LAYER_SGD):
 * a quarter of an H200's 132 SMs, so the main lane's data gradients keep
 * the rest. */
enum { LAYER_SGD_BLOCKS = 32 };

/* The SGD view of layers first..last: one contiguous range of each slab
 * (mlp_layout: a layer's weights, then its bias, then the next layer). */
static sgd_slabs layer_slabs(const mlp *net, int first, int last) {
  const mlp_layout *lay = &net->layout;
  size_t from = lay->w_offset[first];
  size_t to =
      last + 1 < lay->depth ? lay->w_offset[last + 1] : lay->slab_floats;
  size_t size = lt_dtype_size(net->type);
  sgd_slabs s = mlp_sgd_slabs(net);
  s.d_params += from;
  s.d_velocity += from;
  s.d_grads = (const char *)s.d_grads + from * size;
  if (s.d_copy) s.d_copy = (char *)s.d_copy + from * size;
  s.count = to - from;
  return s;
}

static int update_layers(mlp *net, gpu_context *ctx, int lane, int first,
                         int last, const step_update *update) {
  sgd_slabs slabs = layer_slabs(net, first, last);
  if (lane == GPU_LANE_SIDE) slabs.max_blocks = LAYER_SGD_BLOCKS;
  return sgd_update(&slabs, update->d_lr, update->momentum,
                    1.0f / net->loss_scale, &ctx->early,
                    gpu_lane_stream(ctx, lane));
}

/* The first layer's update runs on the main lane; each upper layer's on
 * the side lane (GPU_CHAIN_LAYER_SGD with an update, else none). */
static int layer_sgd(const gpu_context *ctx, const step_update *update) {
  return update && (ctx->options.chain & GPU_CHAIN_LAYER_SGD) != 0;
}

/* The main lane waits for the side lane: every weight gradient, the bias
 * gradients whose partials the side lane added (GPU_CHAIN_SIDE_PARTIALS)
 * and the upper layers' updates (GPU_CHAIN_LAYER_SGD). A one-layer network
 * under GPU_CHAIN_SGD_LANE gave the side lane nothing. */
static int join_side(mlp *net, gpu_context *ctx) {
  if ((ctx->options.chain & GPU_CHAIN_SGD_LANE) && net->layout.depth == 1)
    return 0;
  CUDA_CHECK(cudaEventRecord(net->weights_done, ctx->side_stream));
  CUDA_CHECK(cudaStreamWaitEvent(ctx->stream, net->weights_done, 0));
  return 0;
}

static int backward(mlp *net, gpu_context *ctx, const void *d_x,
                    const int *d_labels, int n, mlp_mode mode, double *d_stats,
                    const step_update *update) {
  int depth = net->layout.depth;
  linear_layer *top = &net->layers[depth - 1];
  if (xent_loss_grad(net->type, top->d_dz, d_stats, top->d_y, lt_ld(top->out),
                     d_labels, net->units[depth], n, net->loss_scale,
                     net->d_xent_scratch, &ctx->early, ctx->stream) != 0)
    return -1;
  /* Layer by layer from the top: once a layer's dZ is ready on the main
   * lane, its weight gradient starts on the side lane while the main lane
   * goes on with the data gradient of the layer below (the critical
   * path). The two lanes never write the same buffer. GPU_CHAIN_SGD_LANE:
   * the first layer's weight gradient stays on the main lane, where SGD
   * follows it (it reads what the main lane wrote, nothing of the side's).
   * GPU_CHAIN_LAYER_SGD: layer l > 0 is updated on the side lane once its
   * gradients are written (its weight gradient earlier on the side lane,
   * its bias gradient by the layer above's data call) and the main lane
   * has read its weights (its own data call, waited for by event). */
  int sgd_lane = (ctx->options.chain & GPU_CHAIN_SGD_LANE) != 0;
  int per_layer = layer_sgd(ctx, update);
  for (int l = depth - 1; l >= 0; l--) {
    linear_layer *layer = &net->layers[l];
    const void *input = l == 0 ? d_x : net->layers[l - 1].d_y;
    int lane = sgd_lane && l == 0 ? GPU_LANE_MAIN : GPU_LANE_SIDE;
    if (lane == GPU_LANE_SIDE) {
      CUDA_CHECK(cudaEventRecord(net->dz_ready[l], ctx->stream));
      CUDA_CHECK(cudaStreamWaitEvent(ctx->side_stream, net->dz_ready[l], 0));
    }
    if (linear_backward_weights(ctx, lane, layer, input, n, mode) != 0)
      return -1;
    if (l == 0) break;
    if (linear_backward_data(ctx, GPU_LANE_MAIN, layer, &net->layers[l - 1], n,
                             mode) != 0)
      return -1;
    if (per_layer) {
      CUDA_CHECK(cudaEventRecord(net->weights_read[l], ctx->stream));
      CUDA_CHECK(
          cudaStreamWaitEvent(ctx->side_stream, net->weights_read[l], 0));
      if (update_layers(net, ctx, GPU_LANE_SIDE, l, l, update) != 0) return -1;
    }
  }
  /* With the first layer's weight gradient and update both on the main
   * lane, the caller joins after that update (the upper layers' updates
   * need not hold it back). */
  return per_layer && sgd_lane ? 0 : join_side(net, ctx);
}

int mlp_backward(mlp *net, gpu_context *ctx, const void *d_x,
                 const int *d_labels, int n, mlp_mode mode, double *d_stats) {
  if (check_training(net, "mlp_backward") != 0) return -1;
  return backward(net, ctx, d_x, d_labels, n, mode, d_stats, NULL);
}

int mlp_step_calls(const mlp *net, const void *d_x, int n, unsigned chain,
                   mlp_call calls[MLP_MAX_STEP_CALLS]) {
  int depth = net->layout.depth, count = 0;
  const void *input = d_x;
  for (int l = 0; l < depth; l++) {
    calls[count++] = (mlp_call){linear_forward_call(&net->layers[l], input, n),
                                MLP_CALL_FORWARD, l, GPU_LANE_MAIN};
    input = net->layers[l].d_y;
  }
  if (net->inference_only) return count;
  for (int l = depth - 1; l >= 0; l--) {
    const linear_layer *layer = &net->layers[l];
    input = l == 0 ? d_x : net->layers[l - 1].d_y;
    int lane =
        l == 0 && (chain & GPU_CHAIN_SGD_LANE) ? GPU_LANE_MAIN : GPU_LANE_SIDE;
    calls[count++] = (mlp_call){linear_backward_weights_call(layer, input, n),
                                MLP_CALL_WEIGHTS, l, lane};
    if (l > 0)
      calls[count++] =
          (mlp_call){linear_backward_data_call(layer, &net->layers[l - 1], n),
                     MLP_CALL_DATA_GRADIENT, l, GPU_LANE_MAIN};
  }
  return count;
}

sgd_slabs mlp_sgd_slabs(const mlp *net) {
  sgd_slabs s = {.d_params = net->d_params,
                 .d_velocity = net->d_velocity,
                 .d_grads = net->d_grads,
                 .d_copy = net->d_params_copy,
                 .type = net->type,
                 .count = net->layout.slab_floats};
  return s;
}

int mlp_update(mlp *net, gpu_context *ctx, const float *d_lr, float momentum) {
  if (check_training(net, "mlp_update") != 0) return -1;
  step_update update = {d_lr, momentum};
  return update_layers(net, ctx, GPU_LANE_MAIN, 0, net->layout.depth - 1,
                       &update);
}

int mlp_train_step(mlp *net, gpu_context *ctx, const void *d_x,
                   const int *d_labels, int n, mlp_mode mode, const float *d_lr,
                   float momentum, double *d_stats) {
  step_update update = {d_lr, momentum};
  /* Refused before the forward pass is enqueued: no work, no activations
   * overwritten. */
  if (check_training(net, "mlp_train_step") != 0 ||
      mlp_forward(net, ctx, d_x, n, mode) != 0 ||
      backward(net, ctx, d_x, d_labels, n, mode, d_stats, &update) != 0)
    return -1;
  /* The layers the side lane has not updated: all, or the first (then
   * the join, when backward left it to here). */
  int per_layer = layer_sgd(ctx, &update);
  if (update_layers(net, ctx, GPU_LANE_MAIN, 0,
                    per_layer ? 0 : net->layout.depth - 1, &update) != 0)
    return -1;
  return per_layer && (ctx->options.chain & GPU_CHAIN_SGD_LANE)
             ? join_side(net, ctx)
             : 0;
}
