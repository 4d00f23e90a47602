/* inference.h: a saved network run forward without a trainer: an
 * inference-only network (layers/mlp.h: parameters, forward activations,
 * no gradients, momentum or training graphs) holding a checkpoint's
 * parameters, and images put on the GPU with the same upload and gather
 * as the trainer's test pass (train/epoch_data.h), so that the same
 * network, batch size and mode give the training log's test numbers bit
 * for bit. Used by mnist_predict and mnist_train --epochs 0. */
#ifndef MNIST_EPILOGS_INFERENCE_H
#define MNIST_EPILOGS_INFERENCE_H

#include "checkpoint/mlp_checkpoint.h"
#include "data/mnist.h"
#include "layers/mlp.h"

/* *out = an inference-only network of the checkpoint's widths built as
 * `options` say (type, activation, padding; inference_only is set here)
 * for batches up to max_batch, holding the checkpoint's parameters
 * (padded units zero). Returns 0, or -1 with a message on stderr and *out
 * NULL. */
int inference_network_create(mlp **out, gpu_context *ctx,
                             const mlp_checkpoint *checkpoint,
                             const mlp_options *options, int max_batch);

/* What inference_run found over a split of `count` images. */
typedef struct inference_totals {
  double mean_loss; /* cross-entropy against the split's labels */
  int correct;      /* argmax == label */
} inference_totals;

/* Runs `net` over every image of `split` in batches of `batch` (<=
 * net->max_batch), x = pixel * pixel_scale + pixel_shift in net->type:
 * h_pred[count] = the predicted classes, h_prob (classes, count) dense =
 * the softmax (if not NULL), *totals. Enqueued on ctx->stream; waits.
 * Returns 0 or -1 (message on stderr). */
int inference_run(inference_totals *totals, int *h_pred, float *h_prob,
                  mlp *net, gpu_context *ctx, mlp_mode mode,
                  const mnist_split *split, int batch, float pixel_scale,
                  float pixel_shift);

#endif
