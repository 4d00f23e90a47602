/* test_call_check.h: holds one call's outputs, as the GPU stored them, to
 * the oracle computed from the call's own inputs, under an error bound
 * derived for the call's storage type (test_call_check.c). Used for single
 * calls on random data (test_lt_precision.c) and for every call of a real
 * training step (test_mlp_precision.c). */
#ifndef MNIST_EPILOGS_TEST_CALL_CHECK_H
#define MNIST_EPILOGS_TEST_CALL_CHECK_H

#include <stdint.h>

#include "lt/lt_shape.h"

/* One call: its inputs as the GPU held them and its outputs as the GPU
 * wrote them, all converted to double, in the shape's layouts. */
typedef struct test_call_result {
  lt_shape shape;
  const double *a, *b;     /* op(A), op(B) as stored (lda, ldb) */
  const double *bias;      /* BIAS, RELU_AUX_BIAS: [m]; else NULL */
  const uint8_t *aux_in;   /* DRELU(_BGRAD): the mask it read; else NULL */
  const double *d;         /* D as written, ld = ldd */
  const double *bias_grad; /* DRELU_BGRAD, DGELU_BGRAD, BGRADA [m], BGRADB
                              [n]; else NULL */
  const uint8_t *aux_out;  /* RELU_AUX_BIAS: the mask written; else NULL */
  const double *gelu_in;   /* DGELU(_BGRAD): the GELU input read, (aux_ld,
                              n) */
  const double *gelu_out;  /* GELU_AUX_BIAS: the GELU input written */
} test_call_result;

/* Fails the running test (ck_assert) at the first element outside its
 * bound, naming `label`, the element, both values and the bound. Returns
 * the number of mask bits not compared because their pre-activation lies
 * within its bound of 0 (either decision is then right). */
int test_check_call(const test_call_result *r, const char *label);

#endif
