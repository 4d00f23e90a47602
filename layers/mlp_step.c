/* mlp_step.c: the training step of the MLP: the backward pass on two lanes,
 * SGD over the one slab, and the list of a step's matmul calls (mlp.h). */
#include <stdio.h>

#include "gpu/gpu_check.h"
#include "layers/mlp.h"
#include "layers/mlp_fp8.h"
#include "layers/sgd.h"
#include "layers/xent.h"
#include "lt/lt_shape.h"

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

/* Layer l as a pass of `mode` runs it: the network's own, or its FP8
 * view (mlp_fp8.h). */
static linear_layer pass_layer(const mlp *net, int l, const void *d_x, int n,
                               mlp_mode mode) {
  return net->fp8_tensors ? mlp_fp8_layer(net, l, d_x, n, mode, MLP_PASS_TRAIN)
                          : net->layers[l];
}

/* The loss kernel: softmax, loss, the gradient at the logits (and in FP8,
 * where the step folds it there, that gradient's FP8 copies). */
static int loss_gradient(mlp *net, gpu_context *ctx, const int *d_labels, int n,
                         double *d_stats) {
  int depth = net->layout.depth;
  linear_layer *top = &net->layers[depth - 1];
  xent_fp8 cast;
  const xent_fp8 *fp8 =
      net->fp8_tensors ? mlp_fp8_loss_cast(net, &cast, n) : NULL;
  return xent_loss_grad_cast(net->type, top->d_dz, d_stats, top->d_y,
                             lt_ld(top->out), d_labels, net->units[depth], n,
                             net->loss_scale, net->d_xent_scratch, fp8,
                             &ctx->early, ctx->stream);
}

int mlp_backward(mlp *net, gpu_context *ctx, const void *d_x,
                 const int *d_labels, int n, mlp_mode mode, double *d_stats) {
  if (check_training(net, "mlp_backward") != 0) return -1;
  int depth = net->layout.depth;
  if (loss_gradient(net, ctx, d_labels, n, d_stats) != 0) return -1;
  /* Layer by layer from the top: once a layer's dZ is ready on the main
   * lane (in FP8: cast, masked by the layer's aux, by the hook before its
   * calls), its weight gradient starts on the side lane while the main
   * lane goes on with the data gradient of the layer below (the critical
   * path). The two lanes never write the same buffer. GPU_CHAIN_SGD_LANE:
   * the first layer's weight gradient stays on the main lane, where SGD
   * follows it (it reads what the main lane wrote, nothing of the side's). */
  int sgd_lane = (ctx->options.chain & GPU_CHAIN_SGD_LANE) != 0;
  for (int l = depth - 1; l >= 0; l--) {
    linear_layer layer = pass_layer(net, l, d_x, n, mode);
    const void *input = l == 0 ? d_x : net->layers[l - 1].d_y;
    int lane = sgd_lane && l == 0 ? GPU_LANE_MAIN : GPU_LANE_SIDE;
    if (net->fp8_tensors && mlp_fp8_cast_gradient(net, ctx, l, n) != 0)
      return -1;
    if (lane == GPU_LANE_SIDE) {
      CUDA_CHECK(cudaEventRecord(net->dz_ready[l], ctx->stream));
      CUDA_CHECK(cudaStreamWaitEvent(ctx->side_stream, net->dz_ready[l], 0));
    }
    if (linear_backward_weights(ctx, lane, &layer, input, n, mode) != 0)
      return -1;
    if (l == 0) break;
    linear_layer below = pass_layer(net, l - 1, d_x, n, mode);
    if (linear_backward_data(ctx, GPU_LANE_MAIN, &layer, &below, n, mode) != 0)
      return -1;
  }
  /* The join: every weight gradient, and the bias gradients whose
   * partials the side lane added (GPU_CHAIN_SIDE_PARTIALS). A one-layer
   * network under GPU_CHAIN_SGD_LANE gave the side lane nothing. */
  if (!(sgd_lane && depth == 1)) {
    CUDA_CHECK(cudaEventRecord(net->weights_done, ctx->side_stream));
    CUDA_CHECK(cudaStreamWaitEvent(ctx->stream, net->weights_done, 0));
  }
  return net->fp8_tensors ? mlp_fp8_end_backward(net, ctx, n) : 0;
}

int mlp_step_calls(const mlp *net, const void *d_x, int n, unsigned chain,
                   mlp_call calls[MLP_MAX_STEP_CALLS]) {
  int depth = net->layout.depth, count = 0;
  mlp_mode mode =
      net->fp8_tensors ? net->fp8_tensors->train_mode : MLP_MODE_FUSED;
  const void *input = d_x;
  for (int l = 0; l < depth; l++) {
    linear_layer layer = pass_layer(net, l, d_x, n, mode);
    calls[count++] = (mlp_call){linear_forward_call(&layer, input, n),
                                MLP_CALL_FORWARD, l, GPU_LANE_MAIN};
    input = net->layers[l].d_y;
  }
  if (net->inference_only) return count;
  for (int l = depth - 1; l >= 0; l--) {
    linear_layer layer = pass_layer(net, l, d_x, n, mode);
    input = l == 0 ? d_x : net->layers[l - 1].d_y;
    int lane =
        l == 0 && (chain & GPU_CHAIN_SGD_LANE) ? GPU_LANE_MAIN : GPU_LANE_SIDE;
    calls[count++] = (mlp_call){linear_backward_weights_call(&layer, input, n),
                                MLP_CALL_WEIGHTS, l, lane};
    if (l == 0) continue;
    linear_layer below = pass_layer(net, l - 1, d_x, n, mode);
    calls[count++] = (mlp_call){linear_backward_data_call(&layer, &below, n),
                                MLP_CALL_DATA_GRADIENT, l, GPU_LANE_MAIN};
  }
  return count;
}

void mlp_set_ways(mlp *net, int way) {
  for (int l = 0; l < net->layout.depth; l++)
    for (int k = 0; k < (int)(sizeof net->layers[l].picks /
                              sizeof net->layers[l].picks[0]);
         k++)
      net->layers[l].picks[k].way = (unsigned char)way;
}

void mlp_call_label(char *out, size_t size, const mlp_call *c) {
  switch (c->kind) {
  case MLP_CALL_FORWARD: snprintf(out, size, "forward %d", c->layer + 1); break;
  case MLP_CALL_WEIGHTS: snprintf(out, size, "weights %d", c->layer + 1); break;
  default:
    snprintf(out, size, "data grad %d->%d", c->layer + 1, c->layer);
    break;
  }
}

int mlp_update(mlp *net, gpu_context *ctx, const float *d_lr, float momentum) {
  if (check_training(net, "mlp_update") != 0) return -1;
  sgd_slabs slabs = mlp_sgd_slabs(net);
  if (net->fp8_tensors) return mlp_fp8_update(net, ctx, &slabs, d_lr, momentum);
  return sgd_update(&slabs, d_lr, momentum, 1.0f / net->loss_scale, &ctx->early,
                    ctx->stream);
}

int mlp_train_step(mlp *net, gpu_context *ctx, const void *d_x,
                   const int *d_labels, int n, mlp_mode mode, const float *d_lr,
                   float momentum, double *d_stats) {
  /* Refused before the forward pass is enqueued: no work, no activations
   * overwritten. */
  if (check_training(net, "mlp_train_step") != 0 ||
      mlp_forward(net, ctx, d_x, n, mode) != 0 ||
      mlp_backward(net, ctx, d_x, d_labels, n, mode, d_stats) != 0)
    return -1;
  return mlp_update(net, ctx, d_lr, momentum);
}
