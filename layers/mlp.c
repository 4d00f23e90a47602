/* mlp.c: the MLP: memory, initialisation, forward and evaluation (the
 * training step: mlp_step.c). An
 * inference-only network allocates the parameters, each layer's d_y, the
 * forward aux and the loss scratch; the rest stays NULL. */
#include "layers/mlp.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu_check.h"
#include "layers/mlp_fp8.h"
#include "layers/mlp_memory.h"
#include "layers/sgd.h"
#include "layers/xent.h"
#include "lt/lt_shape.h"
#include "lt/lt_unfused_kernels.h"

/* Bytes of one layer's aux for max_batch columns (a ReLU mask, or the GELU
 * input in the storage type), rounded up to 256 so the next stays aligned
 * (cuBLASLt needs 16). */
static size_t aux_stride(const mlp *net, int rows) {
  size_t bytes =
      net->activation == LT_ACTIVATION_GELU
          ? (size_t)lt_ld(rows) * net->max_batch * lt_dtype_size(net->type)
          : lt_aux_bytes(rows, net->max_batch);
  return (bytes + 255) / 256 * 256;
}

/* Bytes of `elements` of the net's type, rounded to the slab spacing. */
static size_t tensor_bytes(const mlp *net, size_t elements) {
  return mlp_align_floats(elements) * lt_dtype_size(net->type);
}

/* Bytes of a hidden layer's row-sum partials (linear_layer.d_partials),
 * rounded up to 256; 0 for the output layer. */
static size_t partials_stride(const mlp *net, int l) {
  if (l + 1 >= net->layout.depth) return 0;
  size_t bytes =
      lt_row_sums_scratch_bound(net->layout.widths[l + 1], net->max_batch);
  return (bytes + 255) / 256 * 256;
}

/* Every hidden layer's partials together (0 for an inference network). */
static size_t partials_bytes(const mlp *net) {
  size_t total = 0;
  for (int l = 0; !net->inference_only && l < net->layout.depth; l++)
    total += partials_stride(net, l);
  return total;
}

/* The training-only slabs and events: gradients, momentum. */
static int allocate_training(mlp *net) {
  size_t slab = net->layout.slab_floats * sizeof(float);
  size_t typed_slab = net->layout.slab_floats * lt_dtype_size(net->type);
  CUDA_CHECK(cudaMalloc(&net->d_grads, typed_slab));
  CUDA_CHECK(cudaMalloc((void **)&net->d_velocity, slab));
  CUDA_CHECK(cudaMemset(net->d_grads, 0, typed_slab));
  CUDA_CHECK(cudaMemset(net->d_velocity, 0, slab));
  for (int l = 0; l < net->layout.depth; l++)
    CUDA_CHECK(
        cudaEventCreateWithFlags(&net->dz_ready[l], cudaEventDisableTiming));
  CUDA_CHECK(
      cudaEventCreateWithFlags(&net->weights_done, cudaEventDisableTiming));
  if (partials_bytes(net) > 0)
    CUDA_CHECK(cudaMalloc((void **)&net->d_partials, partials_bytes(net)));
  return 0;
}

/* 0 when the GPU's free memory holds what mlp_allocate will ask for (the
 * sizes counted with overflow checks first), else -1 with both numbers. */
static int check_memory(const mlp *net) {
  mlp_memory need;
  if (mlp_memory_need(&need, &net->layout, (size_t)net->max_batch, net->type,
                      net->activation, net->inference_only,
                      xent_scratch_bytes(net->max_batch) +
                          partials_bytes(net)) != 0) {
    fprintf(stderr,
            "mlp: the memory for this network and a batch of %d overflows "
            "the address space; hint: reduce the batch (--batch) or the "
            "hidden widths (--hidden)\n",
            net->max_batch);
    return -1;
  }
  size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (need.total <= free_bytes) return 0;
  char message[512];
  mlp_memory_message(message, sizeof message, &need, free_bytes, total_bytes,
                     net->max_batch);
  fprintf(stderr, "mlp: %s\n", message);
  return -1;
}

static int mlp_allocate(mlp *net) {
  const mlp_layout *lay = &net->layout;
  if (check_memory(net) != 0) return -1;
  size_t slab = lay->slab_floats * sizeof(float);
  size_t typed_slab = lay->slab_floats * lt_dtype_size(net->type);
  CUDA_CHECK(cudaMalloc((void **)&net->d_params, slab));
  CUDA_CHECK(cudaMemset(net->d_params, 0, slab));
  if (!net->inference_only && allocate_training(net) != 0) return -1;
  if (net->type != LT_DTYPE_F32) {
    CUDA_CHECK(cudaMalloc(&net->d_params_copy, typed_slab));
    CUDA_CHECK(cudaMemset(net->d_params_copy, 0, typed_slab));
  }
  /* Per layer d_y, and d_dz when training. */
  int tensors = net->inference_only ? 1 : 2;
  size_t act_bytes = 0, mask_bytes = 0;
  for (int l = 0; l < lay->depth; l++) {
    int out = lay->widths[l + 1];
    act_bytes +=
        tensors * tensor_bytes(net, (size_t)lt_ld(out) * net->max_batch);
    mask_bytes += aux_stride(net, out);
  }
  CUDA_CHECK(cudaMalloc(&net->d_activations, act_bytes));
  CUDA_CHECK(cudaMalloc((void **)&net->d_masks, mask_bytes));
  size_t scratch = xent_scratch_bytes(net->max_batch);
  CUDA_CHECK(cudaMalloc(&net->d_xent_scratch, scratch));
  CUDA_CHECK(cudaMemset(net->d_xent_scratch, 0, scratch));
  CUDA_CHECK(cudaMemset(net->d_activations, 0, act_bytes));
  CUDA_CHECK(cudaMemset(net->d_masks, 0, mask_bytes));
  CUDA_CHECK(cudaDeviceSynchronize());
  size_t size = lt_dtype_size(net->type);
  char *weights =
      net->d_params_copy ? (char *)net->d_params_copy : (char *)net->d_params;
  char *grads = (char *)net->d_grads;
  char *act = (char *)net->d_activations;
  uint8_t *mask = net->d_masks;
  char *partials = (char *)net->d_partials;
  for (int l = 0; l < lay->depth; l++) {
    linear_layer *layer = &net->layers[l];
    int out = lay->widths[l + 1];
    size_t act_size = tensor_bytes(net, (size_t)lt_ld(out) * net->max_batch);
    layer->in = lay->widths[l];
    layer->out = out;
    layer->hidden = l + 1 < lay->depth;
    layer->type = net->type;
    layer->d_wt = weights + lay->w_offset[l] * size;
    layer->d_b = weights + lay->b_offset[l] * size;
    layer->d_dwt = grads ? grads + lay->w_offset[l] * size : NULL;
    layer->d_db = grads ? grads + lay->b_offset[l] * size : NULL;
    layer->d_y = act;
    layer->d_dz = net->inference_only ? NULL : act + act_size;
    act += tensors * act_size;
    layer->activation = net->activation;
    layer->d_aux = layer->hidden ? (void *)mask : NULL;
    mask += aux_stride(net, out);
    layer->d_partials =
        partials && partials_stride(net, l) ? (float *)partials : NULL;
    if (partials) partials += partials_stride(net, l);
  }
  return 0;
}

int mlp_create(mlp **out, const int *units, int depth, int max_batch,
               const mlp_options *options) {
  const mlp_options none = {0};
  if (!options) options = &none;
  int pad = options->pad_units;
  int multiple = options->pad_multiple > 0 ? options->pad_multiple : 8;
  *out = NULL;
  if (pad && (multiple % 8 != 0 || multiple > 128)) {
    fprintf(stderr,
            "mlp: expected a padding multiple of 8, 16, ... up to 128 "
            "(mlp_options.pad_multiple), found %d\n",
            multiple);
    return -1;
  }
  if (max_batch < 1) {
    fprintf(stderr, "mlp: expected a batch size >= 1, found %d\n", max_batch);
    return -1;
  }
  mlp *net = calloc(1, sizeof *net);
  if (!net) {
    fprintf(stderr, "mlp: out of host memory\n");
    return -1;
  }
  char err[128];
  mlp_layout real;
  int widths[MLP_MAX_LAYERS + 1] = {0};
  for (int l = 0; l <= depth && l <= MLP_MAX_LAYERS; l++)
    widths[l] = pad && l > 0 ? (units[l] + multiple - 1) / multiple * multiple
                             : units[l];
  if (mlp_layout_init(&real, units, depth, err, sizeof err) != 0 ||
      mlp_layout_init(&net->layout, widths, depth, err, sizeof err) != 0) {
    fprintf(stderr, "mlp: %s\n", err);
    free(net);
    return -1;
  }
  memcpy(net->units, real.widths, sizeof net->units);
  net->unit_params = real.param_count;
  net->max_batch = max_batch;
  net->type = options->type;
  net->activation = options->activation;
  net->loss_scale = options->loss_scale > 0.0f      ? options->loss_scale
                    : options->type == LT_DTYPE_F16 ? GPU_FP16_LOSS_SCALE
                                                    : 1.0f;
  net->inference_only = options->inference_only;
  if (mlp_allocate(net) != 0 ||
      (options->fp8 && mlp_fp8_create(net, &options->fp8_recipe) != 0)) {
    mlp_destroy(net);
    return -1;
  }
  *out = net;
  return 0;
}

void mlp_destroy(mlp *net) {
  if (!net) return;
  mlp_fp8_destroy(net);
  if (net->weights_done) cudaEventDestroy(net->weights_done);
  for (int l = 0; l < MLP_MAX_LAYERS; l++) {
    if (net->dz_ready[l]) cudaEventDestroy(net->dz_ready[l]);
  }
  cudaFree(net->d_partials);
  cudaFree(net->d_xent_scratch);
  cudaFree(net->d_masks);
  cudaFree(net->d_activations);
  cudaFree(net->d_velocity);
  cudaFree(net->d_params_copy);
  cudaFree(net->d_grads);
  cudaFree(net->d_params);
  free(net);
}

/* The SGD view of the slabs: mlp_init_params writes the 16-bit copy
 * through it, mlp_step.c updates through it. */
sgd_slabs mlp_sgd_slabs(const mlp *net) {
  sgd_slabs s = {.d_params = net->d_params,
                 .d_velocity = net->d_velocity,
                 .d_grads = net->d_grads,
                 .d_copy = net->d_params_copy,
                 .type = net->type,
                 .count = net->layout.slab_floats};
  return s;
}

int mlp_init_params(mlp *net, gpu_context *ctx, unsigned long long seed) {
  const mlp_layout *lay = &net->layout;
  CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(ctx->rng, seed));
  CURAND_CHECK(curandSetGeneratorOffset(ctx->rng, 0));
  size_t slab = lay->slab_floats * sizeof(float);
  CUDA_CHECK(cudaMemsetAsync(net->d_params, 0, slab, ctx->stream));
  if (net->d_velocity)
    CUDA_CHECK(cudaMemsetAsync(net->d_velocity, 0, slab, ctx->stream));
  for (int l = 0; l < lay->depth; l++) {
    int in = net->units[l], outs = net->units[l + 1];
    int ld = lt_ld(lay->widths[l]), columns = lay->widths[l + 1];
    float *wt = net->d_params + lay->w_offset[l];
    /* The whole (ld, columns) block is drawn (an even count, as cuRAND's
     * normal generator wants), then zeroed where no real unit is: the
     * rows from padded inputs and the columns of padded outputs. */
    size_t count = (size_t)ld * columns;
    float std = sqrtf((net->layers[l].hidden ? 2.0f : 1.0f) / (float)in);
    CURAND_CHECK(curandGenerateNormal(ctx->rng, wt, count, 0.0f, std));
    if (ld > in)
      CUDA_CHECK(cudaMemset2DAsync(wt + in, (size_t)ld * sizeof(float), 0,
                                   (size_t)(ld - in) * sizeof(float),
                                   (size_t)columns, ctx->stream));
    if (columns > outs)
      CUDA_CHECK(cudaMemsetAsync(wt + (size_t)ld * outs, 0,
                                 (size_t)ld * (columns - outs) * sizeof(float),
                                 ctx->stream));
  }
  sgd_slabs slabs = mlp_sgd_slabs(net);
  if (sgd_write_copy(&slabs, ctx->stream) != 0) return -1;
  return net->fp8_tensors ? mlp_fp8_reset(net, ctx) : 0;
}

static int check_batch(const mlp *net, int n) {
  if (n < 1 || n > net->max_batch) {
    fprintf(stderr, "mlp: expected a batch of 1 to %d, found %d\n",
            net->max_batch, n);
    return -1;
  }
  return 0;
}

/* The forward pass of mlp_forward (MLP_PASS_TRAIN) or of an evaluation
 * (MLP_PASS_EVAL): per layer its forward call, in FP8 with the FP8 step's
 * hook after it (mlp_fp8.h). */
static int forward_pass(mlp *net, gpu_context *ctx, const void *d_x, int n,
                        mlp_mode mode, mlp_pass pass) {
  if (check_batch(net, n) != 0) return -1;
  if (net->fp8_tensors && mlp_fp8_begin_pass(net, ctx, d_x, n, mode, pass) != 0)
    return -1;
  const void *input = d_x;
  for (int l = 0; l < net->layout.depth; l++) {
    linear_layer layer = net->fp8_tensors
                             ? mlp_fp8_layer(net, l, d_x, n, mode, pass)
                             : net->layers[l];
    if (linear_forward(ctx, &layer, input, n, mode) != 0 ||
        (net->fp8_tensors &&
         mlp_fp8_after_forward(net, ctx, l, n, mode, pass) != 0))
      return -1;
    input = net->layers[l].d_y;
  }
  return 0;
}

int mlp_forward(mlp *net, gpu_context *ctx, const void *d_x, int n,
                mlp_mode mode) {
  return forward_pass(net, ctx, d_x, n, mode,
                      net->inference_only ? MLP_PASS_EVAL : MLP_PASS_TRAIN);
}

int mlp_evaluate(mlp *net, gpu_context *ctx, const void *d_x,
                 const int *d_labels, int n, mlp_mode mode, double *d_stats) {
  if (forward_pass(net, ctx, d_x, n, mode, MLP_PASS_EVAL) != 0) return -1;
  const linear_layer *top = &net->layers[net->layout.depth - 1];
  return xent_loss_grad(net->type, NULL, d_stats, top->d_y, lt_ld(top->out),
                        d_labels, net->units[net->layout.depth], n, 1.0f,
                        net->d_xent_scratch, &ctx->early, ctx->stream);
}

int mlp_predict(mlp *net, gpu_context *ctx, const void *d_x, int n,
                mlp_mode mode, int *d_pred, float *d_prob) {
  if (forward_pass(net, ctx, d_x, n, mode, MLP_PASS_EVAL) != 0) return -1;
  const linear_layer *top = &net->layers[net->layout.depth - 1];
  return xent_predict(net->type, d_pred, d_prob, top->d_y, lt_ld(top->out),
                      net->units[net->layout.depth], n, ctx->stream);
}

const void *mlp_logits(const mlp *net) {
  return net->layers[net->layout.depth - 1].d_y;
}
