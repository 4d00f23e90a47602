/* inference.c: a saved network on images, no trainer (inference.h). */
#include "train/inference.h"

#include <stdio.h>
#include <stdlib.h>

#include "gpu/gpu_check.h"
#include "layers/xent.h"
#include "train/epoch_data.h"

int inference_network_create(mlp **out, gpu_context *ctx,
                             const mlp_checkpoint *checkpoint,
                             const mlp_options *options, int max_batch) {
  mlp_options o = *options;
  o.inference_only = 1;
  if (mlp_create(out, checkpoint->layout.widths, checkpoint->layout.depth,
                 max_batch, &o) != 0)
    return -1;
  mlp *net = *out;
  int status =
      mlp_set_params_from(net, ctx, &checkpoint->layout, checkpoint->slab);
  if (status != 0) {
    mlp_destroy(net);
    *out = NULL;
  }
  return status;
}

/* The device buffers of one run: [count] predictions, (classes, count)
 * probabilities, the loss and hit accumulators. */
typedef struct run_buffers {
  int *d_pred;
  float *d_prob;
  double *d_stats; /* [2]: summed loss, correct */
} run_buffers;

static void buffers_free(run_buffers *b) {
  cudaFree(b->d_stats);
  cudaFree(b->d_prob);
  cudaFree(b->d_pred);
}

/* Enqueues every batch: loss and hits, then the predictions from the
 * same logits (no second forward pass). */
static int enqueue(const run_buffers *b, mlp *net, gpu_context *ctx,
                   mlp_mode mode, epoch_data *data) {
  const epoch_split *split = &data->test;
  int classes = net->units[net->layout.depth];
  for (int s = 0; s < epoch_data_steps(data, split); s++) {
    int n = epoch_data_batch_size(data, split, s);
    size_t first = (size_t)s * data->batch;
    if (mlp_evaluate(net, ctx, epoch_data_x(data, split, s),
                     epoch_data_y(data, split, s), n, mode, b->d_stats) != 0 ||
        xent_predict(net->type, b->d_pred + first, b->d_prob + first * classes,
                     mlp_logits(net), lt_ld(classes), classes, n,
                     ctx->stream) != 0)
      return -1;
  }
  return 0;
}

static int run(inference_totals *totals, int *h_pred, float *h_prob,
               const run_buffers *b, mlp *net, gpu_context *ctx, mlp_mode mode,
               epoch_data *data) {
  int count = data->test.count, classes = net->units[net->layout.depth];
  cudaStream_t stream = ctx->stream;
  CUDA_CHECK(cudaMemsetAsync(b->d_stats, 0, 2 * sizeof(double), stream));
  if (enqueue(b, net, ctx, mode, data) != 0) return -1;
  double stats[2];
  CUDA_CHECK(cudaMemcpyAsync(stats, b->d_stats, sizeof stats,
                             cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaMemcpyAsync(h_pred, b->d_pred, (size_t)count * sizeof(int),
                             cudaMemcpyDeviceToHost, stream));
  if (h_prob)
    CUDA_CHECK(cudaMemcpyAsync(h_prob, b->d_prob,
                               (size_t)count * classes * sizeof(float),
                               cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  totals->mean_loss = stats[0] / count;
  totals->correct = (int)stats[1];
  return 0;
}

static int allocate(run_buffers *b, int count, int classes) {
  CUDA_CHECK(cudaMalloc((void **)&b->d_pred, (size_t)count * sizeof(int)));
  CUDA_CHECK(
      cudaMalloc((void **)&b->d_prob, (size_t)count * classes * sizeof(float)));
  CUDA_CHECK(cudaMalloc((void **)&b->d_stats, 2 * sizeof(double)));
  return 0;
}

int inference_run(inference_totals *totals, int *h_pred, float *h_prob,
                  mlp *net, gpu_context *ctx, mlp_mode mode,
                  const mnist_split *split, int batch, float pixel_scale,
                  float pixel_shift) {
  if (split->count < 1 || batch < 1 || batch > net->max_batch) {
    fprintf(stderr,
            "inference: expected 1 or more images in batches of 1 to %d, "
            "found %d images in batches of %d\n",
            net->max_batch, split->count, batch);
    return -1;
  }
  /* A data set of the one split, as the trainer's test split (borrowed:
   * not destroyed here). */
  mnist_dataset images = {.test = *split};
  epoch_data *data = NULL;
  run_buffers b = {0};
  int status = -1;
  if (epoch_data_create(&data, &images, batch, net->type,
                        net->fp8_tensors != NULL, pixel_scale, pixel_shift,
                        ctx->stream) == 0 &&
      allocate(&b, split->count, net->units[net->layout.depth]) == 0)
    status = run(totals, h_pred, h_prob, &b, net, ctx, mode, data);
  epoch_data_destroy(data);
  buffers_free(&b);
  return status;
}
