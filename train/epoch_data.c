/* epoch_data.c: the data set on the GPU (epoch_data.h). */
#include "train/epoch_data.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu_check.h"
#include "layers/mlp_fp8.h"
#include "layers/mlp_layout.h"
#include "train/epoch_gather.h"

int epoch_data_steps(const epoch_data *d, const epoch_split *split) {
  return (split->count + d->batch - 1) / d->batch;
}

int epoch_data_batch_size(const epoch_data *d, const epoch_split *split,
                          int step) {
  int left = split->count - step * d->batch;
  return left < d->batch ? left : d->batch;
}

const void *epoch_data_x(const epoch_data *d, const epoch_split *split,
                         int step) {
  return (const char *)split->d_x + (size_t)step * d->batch_bytes;
}

const int *epoch_data_y(const epoch_data *d, const epoch_split *split,
                        int step) {
  return split->d_y + (size_t)step * d->batch;
}

static int split_upload(epoch_data *d, epoch_split *out,
                        const mnist_split *split) {
  if (split->count == 0) return 0;
  size_t pixels = (size_t)split->count * MNIST_PIXELS;
  out->count = split->count;
  size_t x_bytes = (size_t)epoch_data_steps(d, out) * d->batch_bytes;
  CUDA_CHECK(cudaMalloc((void **)&out->d_images, pixels));
  CUDA_CHECK(cudaMalloc((void **)&out->d_labels, (size_t)split->count));
  CUDA_CHECK(
      cudaMalloc((void **)&out->d_order, (size_t)split->count * sizeof(int)));
  CUDA_CHECK(cudaMalloc(&out->d_x, x_bytes));
  CUDA_CHECK(
      cudaMalloc((void **)&out->d_y, (size_t)split->count * sizeof(int)));
  CUDA_CHECK(cudaMemsetAsync(out->d_x, 0, x_bytes, d->stream));
  CUDA_CHECK(cudaMemcpyAsync(out->d_images, split->images, pixels,
                             cudaMemcpyHostToDevice, d->stream));
  CUDA_CHECK(cudaMemcpyAsync(out->d_labels, split->labels, (size_t)split->count,
                             cudaMemcpyHostToDevice, d->stream));
  return 0;
}

static void split_release(epoch_split *split) {
  cudaFree(split->d_y);
  cudaFree(split->d_x);
  cudaFree(split->d_order);
  cudaFree(split->d_labels);
  cudaFree(split->d_images);
}

/* splitmix64: a small, well-mixed generator for the batch order. */
static unsigned long long next_random(unsigned long long *state) {
  unsigned long long z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* h_order = a permutation of 0..count-1 that depends only on seed and
 * epoch (Fisher-Yates); epoch < 0 gives the identity. */
static void order_fill(int *h_order, int count, unsigned long long seed,
                       int epoch) {
  for (int i = 0; i < count; i++)
    h_order[i] = i;
  if (epoch < 0) return;
  unsigned long long state =
      seed ^ (0x5851f42d4c957f2dull * (unsigned)(epoch + 1));
  for (int i = count - 1; i > 0; i--) {
    int j = (int)(next_random(&state) % (unsigned long long)(i + 1));
    int swap = h_order[i];
    h_order[i] = h_order[j];
    h_order[j] = swap;
  }
}

int epoch_data_shuffle(epoch_data *d, unsigned long long seed, int epoch) {
  /* The last upload from h_order reads it when the stream gets there: on
   * the H200, under compute-sanitizer, the test split once received the
   * training split's shuffled order (test_epoch_gather_racecheck). */
  if (d->train.count == 0) return 0;
  CUDA_CHECK(cudaEventSynchronize(d->order_sent));
  order_fill(d->h_order, d->train.count, seed, epoch);
  CUDA_CHECK(cudaMemcpyAsync(d->train.d_order, d->h_order,
                             (size_t)d->train.count * sizeof(int),
                             cudaMemcpyHostToDevice, d->stream));
  CUDA_CHECK(cudaEventRecord(d->order_sent, d->stream));
  return 0;
}

int epoch_data_gather(epoch_data *d, const epoch_split *split) {
  if (d->fp8)
    return epoch_gather_fp8(
        split->d_x, split->d_y, split->d_images, split->d_labels,
        split->d_order, split->count, d->batch, d->batch_bytes, MNIST_PIXELS,
        d->pixel_scale, d->pixel_shift, d->fp8_scale, d->stream);
  return epoch_gather_batches(d->type, split->d_x, split->d_y, split->d_images,
                              split->d_labels, split->d_order, split->count,
                              d->batch, d->batch_bytes / lt_dtype_size(d->type),
                              MNIST_PIXELS, d->pixel_scale, d->pixel_shift,
                              d->stream);
}

/* The FP8 batches' scale: fp8_scale_from_amax of the largest |x| any
 * pixel (0 to 255) can give. */
static float pixels_fp8_scale(float pixel_scale, float pixel_shift) {
  float amax =
      fmaxf(fabsf(pixel_shift), fabsf(255.0f * pixel_scale + pixel_shift));
  float scale = 1.0f;
  fp8_scale_from_amax(&scale, amax, LT_FP8_E4M3, NULL, 0);
  return scale;
}

/* Each FP8 batch's scale record {1 / fp8_scale, fp8_scale}: written once
 * (mlp_fp8.h), on the stream after the buffer's zeroing. */
static int write_scale_records(epoch_data *d, const epoch_split *split) {
  int steps = epoch_data_steps(d, split);
  float *records = malloc((size_t)steps * 2 * sizeof(float));
  if (!records) {
    fprintf(stderr, "epoch_data: out of host memory\n");
    return -1;
  }
  for (int s = 0; s < steps; s++) {
    records[2 * s] = 1.0f / d->fp8_scale;
    records[2 * s + 1] = d->fp8_scale;
  }
  /* From pageable memory: the copy has read it when it returns. */
  cudaError_t status = cudaMemcpy2DAsync(
      split->d_x, d->batch_bytes, records, 2 * sizeof(float), 2 * sizeof(float),
      (size_t)steps, cudaMemcpyHostToDevice, d->stream);
  free(records);
  CUDA_CHECK(status);
  return 0;
}

static int data_init(epoch_data *d, const mnist_dataset *data) {
  d->batch_bytes =
      d->fp8 ? mlp_fp8_batch_bytes(MNIST_PIXELS, d->batch)
             : mlp_align_floats((size_t)lt_ld(MNIST_PIXELS) * d->batch) *
                   lt_dtype_size(d->type);
  d->fp8_scale = pixels_fp8_scale(d->pixel_scale, d->pixel_shift);
  if (split_upload(d, &d->train, &data->train) != 0 ||
      split_upload(d, &d->test, &data->test) != 0 ||
      (d->fp8 && d->train.count > 0 && write_scale_records(d, &d->train)) ||
      (d->fp8 && d->test.count > 0 && write_scale_records(d, &d->test)))
    return -1;
  /* Both orders start as the identity (the test split keeps it: it is
   * gathered once, in file order); h_order is long enough for either. */
  int longest = d->train.count > d->test.count ? d->train.count : d->test.count;
  if (longest == 0) return 0;
  CUDA_CHECK(
      cudaMallocHost((void **)&d->h_order, (size_t)longest * sizeof(int)));
  CUDA_CHECK(cudaEventCreateWithFlags(&d->order_sent, cudaEventDisableTiming));
  order_fill(d->h_order, longest, 0, -1);
  CUDA_CHECK(cudaMemcpyAsync(d->test.d_order, d->h_order,
                             (size_t)d->test.count * sizeof(int),
                             cudaMemcpyHostToDevice, d->stream));
  if (d->train.count > 0)
    CUDA_CHECK(cudaMemcpyAsync(d->train.d_order, d->h_order,
                               (size_t)d->train.count * sizeof(int),
                               cudaMemcpyHostToDevice, d->stream));
  CUDA_CHECK(cudaEventRecord(d->order_sent, d->stream));
  return d->test.count > 0 ? epoch_data_gather(d, &d->test) : 0;
}

int epoch_data_create(epoch_data **out, const mnist_dataset *data, int batch,
                      lt_dtype type, int fp8, float pixel_scale,
                      float pixel_shift, cudaStream_t stream) {
  *out = NULL;
  epoch_data *d = calloc(1, sizeof *d);
  if (!d) {
    fprintf(stderr, "epoch_data: out of host memory\n");
    return -1;
  }
  d->batch = batch;
  d->type = type;
  d->fp8 = fp8;
  d->pixel_scale = pixel_scale;
  d->pixel_shift = pixel_shift;
  d->stream = stream;
  if (data_init(d, data) != 0) {
    fprintf(stderr, "epoch_data: could not put the data set on the GPU "
                    "(see above)\n");
    epoch_data_destroy(d);
    return -1;
  }
  *out = d;
  return 0;
}

void epoch_data_destroy(epoch_data *d) {
  if (!d) return;
  cudaStreamSynchronize(d->stream);
  if (d->order_sent) cudaEventDestroy(d->order_sent);
  cudaFreeHost(d->h_order);
  split_release(&d->test);
  split_release(&d->train);
  free(d);
}
