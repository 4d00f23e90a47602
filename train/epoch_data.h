/* epoch_data.h: a data set on the GPU, ready for training: each split's
 * bytes as loaded (uploaded once), its order, and its normalised float
 * samples in batch order, which every step's batch is a view into.
 *
 * x of a split is (784, count) col-major in batches, in the matmul storage
 * type: batch s starts at d_x + s * batch_bytes, a 256-byte boundary, so
 * every batch has the same alignment and shares the same cuBLASLt plans.
 * For an FP8 network each batch is its FP8 input instead (mlp_fp8.h's
 * batch: the scale record, X8 and X8T, E4M3 with the pixels' scale), cast
 * here so that no step casts its input. The training split is re-gathered
 * in a fresh order once per epoch (one kernel; for FP8 it writes X8 and
 * X8T);
 * the test split is gathered once, in file order.
 */
#ifndef MNIST_EPILOGS_EPOCH_DATA_H
#define MNIST_EPILOGS_EPOCH_DATA_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#include "data/mnist.h"
#include "lt/lt_shape.h"

typedef struct epoch_split {
  int count;
  uint8_t *d_images; /* (count, 784) bytes, as loaded */
  uint8_t *d_labels; /* [count] */
  int *d_order;      /* [count]: sample taken at each position */
  void *d_x;         /* batches of (784, batch), batch_bytes apart */
  int *d_y;          /* [count] labels in the same order */
} epoch_split;

typedef struct epoch_data {
  epoch_split train, test;
  int batch;
  lt_dtype type;                  /* of d_x */
  int fp8;                        /* 1: d_x holds FP8 batches (mlp_fp8.h) */
  float fp8_scale;                /* with fp8: the pixels' scale */
  size_t batch_bytes;             /* between batch starts in d_x */
  float pixel_scale, pixel_shift; /* as created */
  int *h_order;                   /* pinned [max(train, test count)]: the order
                                     being uploaded */
  cudaEvent_t order_sent; /* recorded after each upload from h_order, which
                             is not written again before it has passed */
  cudaStream_t stream;    /* borrowed: uploads and gathers run here */
} epoch_data;

/* Uploads both splits (a split of count 0 is left empty: an inference
 * run has no training split), gathers the test split (file order, samples
 * stored in `type`, or as FP8 batches when `fp8`, x = pixel * pixel_scale
 * + pixel_shift) and sets the training order to the identity, all
 * enqueued on `stream`. Returns 0, or -1 with a message on stderr and
 * *out NULL. */
int epoch_data_create(epoch_data **out, const mnist_dataset *data, int batch,
                      lt_dtype type, int fp8, float pixel_scale,
                      float pixel_shift, cudaStream_t stream);
/* Waits for the stream, then frees; a no-op on NULL. */
void epoch_data_destroy(epoch_data *d);

/* Draws the training order of `epoch`, a permutation that depends only on
 * seed and epoch (Fisher-Yates over splitmix64; epoch < 0: the file's own
 * order), and enqueues its upload.
 * The previous upload must have finished (the caller synchronises once per
 * epoch). Returns 0 or -1. */
int epoch_data_shuffle(epoch_data *d, unsigned long long seed, int epoch);

/* Enqueues the gather of `split` into batch order: one kernel (FP8: X8
 * and X8T of every batch). */
int epoch_data_gather(epoch_data *d, const epoch_split *split);

/* Batches of a split, the samples in batch `step` (the last may be
 * partial), and the views of that batch: x (784, n) and labels [n]. */
int epoch_data_steps(const epoch_data *d, const epoch_split *split);
int epoch_data_batch_size(const epoch_data *d, const epoch_split *split,
                          int step);
const void *epoch_data_x(const epoch_data *d, const epoch_split *split,
                         int step);
const int *epoch_data_y(const epoch_data *d, const epoch_split *split,
                        int step);

#endif
