/* mlp.h: a multilayer perceptron of any depth on the GPU: parameters,
 * gradients and momentum in one slab each (mlp_layout.h), activations,
 * gradients at each layer and ReLU masks sized once for max_batch.
 * Nothing is allocated by the step functions. An inference-only network
 * (mlp_options.inference_only) holds the parameters, the forward
 * activations, the forward epilogue's aux and the loss scratch, nothing
 * else: it runs mlp_forward, mlp_predict and mlp_evaluate, and refuses
 * the training calls.
 *
 * Precision: the matmuls' storage type `type` (lt_precision_dtype). The
 * master weights and the momentum are FP32 whatever it is; in BF16/FP16
 * the matmuls read a 16-bit copy of the weights that the SGD kernel writes
 * in the same pass (d_params_copy), and activations, masks-producing
 * outputs and every gradient are 16-bit. Softmax and loss run in FP32 on
 * the 16-bit logits. FP16 scales the loss gradient by loss_scale (and SGD
 * divides it out) so that small gradients do not flush to zero.
 *
 * A training step (docs/backprop.md, "Every call of a step"), per batch of
 * n <= max_batch:
 *   mlp_forward   hidden layers RELU_AUX_BIAS, output layer BIAS
 *   mlp_backward  softmax cross-entropy kernel, then output layer BGRADB,
 *                 then per hidden layer DRELU_BGRAD and a DEFAULT matmul
 *   mlp_update    one SGD kernel over the whole parameter slab
 * All work is enqueued on ctx->stream; inside mlp_backward the weight
 * gradients run on the side lane, overlapping the data gradients (joined
 * before it returns). Nothing waits for the host, except --mode auto's
 * first call of each shape, which times each way (lt/lt_auto.h).
 */
#ifndef MNIST_EPILOGS_MLP_H
#define MNIST_EPILOGS_MLP_H

#include "gpu/gpu_options.h"
#include "layers/fp8.h"
#include "layers/linear.h"
#include "layers/mlp_layout.h"
#include "layers/sgd.h"

/* How a network is built (mlp_create); zeroed (or NULL): FP32, ReLU, no
 * padding, the type's loss scale, a training network. */
typedef struct mlp_options {
  lt_dtype type;            /* of the matmuls' operands */
  lt_activation activation; /* of the hidden layers */
  /* 1: every layer's output width padded to a multiple of 8 (784-100-10
   * runs as 784-104-16): the extra units' weights in and out and biases
   * start at 0 and provably stay 0 (their pre-activation is 0, so their
   * output ReLU(0) = 0 and no weight out of them gets a gradient; no loss
   * gradient reaches them: the loss reads only the real logits, and the
   * padded rows of its gradient are never written, zero since
   * allocation), so it computes the same function and gradients, with
   * every call at widths cuBLASLt's sm90 kernels take. */
  int pad_units;
  int pad_multiple;      /* with pad_units: the multiple the widths are
                            padded to, a multiple of 8 up to 128 (0 means 8);
                            the programs offer 8, 16 and 32 (784-100-10 as
                            784-104-16, 784-112-16 or 784-128-32) */
  float loss_scale;      /* > 0: this scale; 0: GPU_FP16_LOSS_SCALE for F16,
                            else 1 */
  int inference_only;    /* 1: no gradients, momentum, loss gradients or
                            training events (their pointers stay NULL) */
  int fp8;               /* 1: the FP8 step (layers/mlp_fp8.h) on a BF16
                            network (type must be BF16; every width a
                            multiple of 16, padded or not) */
  fp8_recipe fp8_recipe; /* with fp8 */
} mlp_options;

struct mlp_fp8_tensors; /* layers/mlp_fp8.h */

typedef struct mlp {
  mlp_layout layout;             /* of the logical widths the calls use */
  int units[MLP_MAX_LAYERS + 1]; /* the widths asked for (layout.widths
                                    unless padded: mlp_options.pad_units) */
  size_t unit_params;            /* parameters of those units */
  int max_batch;
  lt_dtype type;            /* of the matmuls' operands (see above) */
  lt_activation activation; /* of the hidden layers */
  float loss_scale;
  int inference_only; /* d_grads, d_velocity, d_dz, events: NULL */
  linear_layer layers[MLP_MAX_LAYERS];
  float *d_params;                      /* FP32 master slab:
                                           layout.slab_floats */
  void *d_params_copy;                  /* `type` copy for the matmuls, same
                                           offsets; NULL in FP32 */
  void *d_grads;                        /* `type` slab, same offsets */
  float *d_velocity;                    /* FP32 slab, same offsets */
  void *d_activations;                  /* every layer's d_y and d_dz (d_y
                                           only when inference_only) */
  uint8_t *d_masks;                     /* every hidden layer's aux: ReLU
                                           bit-mask or GELU input */
  void *d_xent_scratch;                 /* the loss kernel's (xent.h) */
  float *d_partials;                    /* training: each hidden layer's
                                           linear_layer.d_partials */
  cudaEvent_t dz_ready[MLP_MAX_LAYERS]; /* layer l's d_dz written (main) */
  cudaEvent_t weights_done;             /* side lane finished (side) */
  struct mlp_fp8_tensors *fp8_tensors;  /* the FP8 copies of weights,
                                       inputs and gradients and their
                                       scaling state (mlp_fp8.h); NULL
                                       unless mlp_options.fp8 */
} mlp;

/* Allocates an MLP for widths[0..depth] and batches up to max_batch, as
 * `options` say (NULL: all zero, see mlp_options); zero parameters until
 * mlp_init_params or mlp_set_params. Every buffer is zeroed before it
 * returns (the device is synchronised: the zeroing is on the legacy stream,
 * the context's streams do not wait for it). Returns 0, or -1 with a
 * message on stderr and *out NULL. */
int mlp_create(mlp **out, const int *widths, int depth, int max_batch,
               const mlp_options *options);
void mlp_destroy(mlp *net);

/* Weights ~ N(0, 2 / in) for ReLU layers (He), N(0, 1 / in) for the output
 * layer (padding rows 0); biases and momentum 0; the 16-bit copy written.
 * Reseeds ctx->rng with `seed` (offset 0) and draws from it on
 * ctx->stream: the same seed, the same weights. */
int mlp_init_params(mlp *net, gpu_context *ctx, unsigned long long seed);

/* h_slab (layout.slab_floats FP32, the network's layout) -> the master
 * parameters; the momentum (if any) zeroed; the 16-bit copy (if any)
 * rewritten; an FP8 network's FP8 weights cast anew and its scaling state
 * started over (mlp_fp8_reset: the next training pass calibrates). On
 * ctx->stream; waits for it. Returns 0 or -1. */
int mlp_set_params(mlp *net, gpu_context *ctx, const float *h_slab);

/* mlp_set_params from h_slab in `layout`, another layout of the same
 * units (a checkpoint's: the real widths), copied into the network's
 * (padded units zero). Returns 0 or -1. */
int mlp_set_params_from(mlp *net, gpu_context *ctx, const mlp_layout *layout,
                        const float *h_slab);

/* h_slab (layout.slab_floats floats) = the FP32 master parameters, after
 * the work enqueued on ctx->stream. Returns 0 or -1. */
int mlp_get_params(const mlp *net, gpu_context *ctx, float *h_slab);

/* Forward pass of d_x (widths[0], n), ld lt_ld(widths[0]), in net->type
 * (an FP8 network: an FP8 batch, mlp_fp8_batch in mlp_fp8.h); logits end
 * in mlp_logits(net). The forward of a training step (FP8: the copies the
 * backward reads are written, the amax values feed the histories), or in
 * an inference-only network its evaluation pass. The same calls in a
 * training and an inference-only network (the hidden layers'
 * RELU_AUX_BIAS / GELU_AUX_BIAS still write their aux, which an
 * inference-only network keeps for this reason: the same epilogue on the
 * same GEMM gives the same bits as the training step's forward, with no
 * second plan to trust). */
int mlp_forward(mlp *net, gpu_context *ctx, const void *d_x, int n,
                mlp_mode mode);

/* Loss gradient and backward pass after mlp_forward on the same d_x:
 * every gradient in d_grads is written (=), but an FP8 network's bias
 * gradients, which mlp_update sums from the casts' partial sums in SGD's
 * pass and writes there (mlp_fp8.h). -1 for an inference-only
 * network (so are mlp_update and mlp_train_step). d_stats[0] += summed loss,
 * d_stats[1] += correct predictions. Weight gradients run on the side lane
 * (but the first layer's on the main lane under GPU_CHAIN_SGD_LANE), data
 * gradients on the main lane; the main lane waits for the side lane at the
 * end, so everything is written once the main lane gets there. */
int mlp_backward(mlp *net, gpu_context *ctx, const void *d_x,
                 const int *d_labels, int n, mlp_mode mode, double *d_stats);

/* v = momentum * v + grads / loss_scale; params -= lr * v, with lr =
 * *d_lr read on the GPU; the 16-bit copy rewritten: one kernel over the
 * whole slab. */
int mlp_update(mlp *net, gpu_context *ctx, const float *d_lr, float momentum);

/* mlp_forward + mlp_backward + mlp_update. */
int mlp_train_step(mlp *net, gpu_context *ctx, const void *d_x,
                   const int *d_labels, int n, mlp_mode mode, const float *d_lr,
                   float momentum, double *d_stats);

/* An evaluation pass, then d_pred[j] = the predicted class of sample j
 * and, if d_prob, d_prob (classes, n) = the softmax probabilities
 * (xent_predict). An evaluation pass is mlp_forward's calls, but an FP8
 * network writes no copy for a backward and keeps its amax values out of
 * the training histories (its own scaling state: mlp_fp8.h). */
int mlp_predict(mlp *net, gpu_context *ctx, const void *d_x, int n,
                mlp_mode mode, int *d_pred, float *d_prob);

/* An evaluation pass (mlp_predict's) and the loss: d_stats[0] += loss,
 * d_stats[1] += correct. */
int mlp_evaluate(mlp *net, gpu_context *ctx, const void *d_x,
                 const int *d_labels, int n, mlp_mode mode, double *d_stats);

/* One cuBLASLt call of a training step, as mlp_forward and mlp_backward
 * make it (linear_*_call), on the lane it runs on. */
typedef enum mlp_call_kind {
  MLP_CALL_FORWARD = 0,       /* layer's forward: RELU_AUX_BIAS or BIAS */
  MLP_CALL_DATA_GRADIENT = 1, /* layer's input gradient: DRELU_BGRAD */
  MLP_CALL_WEIGHTS = 2        /* layer's weight gradient: DEFAULT or BGRADB */
} mlp_call_kind;              /* also the index of linear_layer.picks */

typedef struct mlp_call {
  lt_matmul_call call;
  mlp_call_kind kind;
  int layer; /* 0 = the first (784 -> widths[1]) */
  int lane;  /* GPU_LANE_MAIN or GPU_LANE_SIDE */
} mlp_call;

/* Every call of every layer to go `way` (an lt_auto_choice) under --mode
 * auto: fused until the step tuner has chosen (train/step_tune.h). */
void mlp_set_ways(mlp *net, int way);

/* The call's name as docs/performance.md writes it ("forward 1", "data grad
 * 2->1", "weights 3"): layers count from 1 (layer 0 is "1", the 784 ->
 * first hidden layer). */
void mlp_call_label(char *out, size_t size, const mlp_call *c);

/* Most calls of a step: a forward and a weight gradient per layer, a data
 * gradient for every layer but the first. */
#define MLP_MAX_STEP_CALLS (3 * MLP_MAX_LAYERS - 1)

/* Fills calls[0 .. count) with the matmul calls of one training step on
 * d_x (widths[0], n) in the order the step enqueues them (forwards from
 * the bottom, then per layer from the top its weight gradient and, but for
 * layer 0, its data gradient; an inference-only network: the forwards
 * only), each on the lane it runs on under `chain` (gpu_options.chain);
 * returns count. Running them rewrites the
 * step's outputs (activations, masks, gradients) from the buffers' current
 * contents, as a step would. An FP8 network: its calls as its last
 * training pass ran them (mlp_fp8.h: the mode and scaling decide which
 * forward GEMMs write FP8). */
int mlp_step_calls(const mlp *net, const void *d_x, int n, unsigned chain,
                   mlp_call calls[MLP_MAX_STEP_CALLS]);

/* (classes, n) logits of the last forward pass, ld lt_ld(classes), in
 * net->type. */
const void *mlp_logits(const mlp *net);

/* The SGD view of the slabs (layers/sgd.h). */
sgd_slabs mlp_sgd_slabs(const mlp *net);

#endif
