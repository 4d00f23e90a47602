/* test_batch.h: random batches on host and device for the MLP suites, and
 * the relative error they compare gradients by. */
#ifndef MNIST_EPILOGS_TEST_BATCH_H
#define MNIST_EPILOGS_TEST_BATCH_H

#include <stddef.h>

#include "data/mnist.h"
#include "lt/lt_shape.h"
#include "tests/test_util.h"

typedef struct test_batch {
  float *h_x;    /* (features, n) col-major, ld lt_ld(features) (the
                    padding rows filled too: nothing may read them),
                    uniform in [-1, 1), rounded to the batch's type */
  int *h_labels; /* [n], uniform in 0 .. classes - 1 */
  void *d_x;     /* device copies, x in the batch's type */
  int *d_labels;
} test_batch;

test_batch test_batch_make(test_rng *rng, int features, int n, int classes,
                           lt_dtype type);
void test_batch_free(test_batch *b);

/* An in-memory data set of random images and labels (train and test
 * images each); free with mnist_dataset_destroy. */
mnist_dataset test_random_dataset(test_rng *rng, int train, int test);

/* ||got - want|| / ||want|| (2-norms). */
double test_rel_error(const float *got, const double *want, size_t count);

/* ||got - want|| / ||scale|| (2-norms): the error against a scale of its
 * own, such as the sums of |terms| (oracle_step.grad_magnitudes). */
double test_error_to(const float *got, const double *want, const double *scale,
                     size_t count);

#endif
