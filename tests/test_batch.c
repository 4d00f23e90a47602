/* test_batch.c: see test_batch.h. */
#include "tests/test_batch.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "tests/test_gpu.h"
#include "tests/test_types.h"

test_batch test_batch_make(test_rng *rng, int features, int n, int classes,
                           lt_dtype type) {
  test_batch b;
  size_t count = (size_t)lt_ld(features) * n;
  b.h_x = malloc(count * sizeof(float));
  b.h_labels = malloc((size_t)n * sizeof(int));
  for (size_t i = 0; i < count; i++)
    b.h_x[i] = test_round(type, (float)test_rng_uniform(rng, -1, 1));
  for (int j = 0; j < n; j++)
    b.h_labels[j] = (int)(test_rng_next(rng) % (uint64_t)classes);
  b.d_x = test_upload_as(type, b.h_x, count);
  b.d_labels = test_upload(b.h_labels, (size_t)n * sizeof(int));
  return b;
}

/* `count` random images and labels. */
static mnist_split random_split(test_rng *rng, int count) {
  mnist_split s = {.count = count,
                   .images = malloc((size_t)count * MNIST_PIXELS),
                   .labels = malloc((size_t)count)};
  for (size_t i = 0; i < (size_t)count * MNIST_PIXELS; i++)
    s.images[i] = (uint8_t)(test_rng_next(rng) & 0xFF);
  for (int i = 0; i < count; i++)
    s.labels[i] = (uint8_t)(test_rng_next(rng) % MNIST_CLASSES);
  return s;
}

mnist_dataset test_random_dataset(test_rng *rng, int train, int test) {
  mnist_dataset data;
  memset(&data, 0, sizeof data);
  data.train = random_split(rng, train);
  data.test = random_split(rng, test);
  data.pixel_mean = 0.5f;
  data.pixel_std = 0.29f;
  return data;
}

void test_batch_free(test_batch *b) {
  free(b->h_x);
  free(b->h_labels);
  test_free(b->d_x);
  test_free(b->d_labels);
}

double test_rel_error(const float *got, const double *want, size_t count) {
  double diff = 0, size = 0;
  for (size_t i = 0; i < count; i++) {
    diff += (got[i] - want[i]) * (got[i] - want[i]);
    size += want[i] * want[i];
  }
  return sqrt(diff) / (sqrt(size) + 1e-300);
}

double test_error_to(const float *got, const double *want, const double *scale,
                     size_t count) {
  double diff = 0, size = 0;
  for (size_t i = 0; i < count; i++) {
    diff += (got[i] - want[i]) * (got[i] - want[i]);
    size += scale[i] * scale[i];
  }
  return sqrt(diff) / (sqrt(size) + 1e-300);
}
