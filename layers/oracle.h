/* oracle.h: the plain-C reference for every fused step, in double
 * precision and in exactly the GPU's layouts (column-major, W stored as Wt
 * (in, out), the cuBLASLt ReLU bit-mask). Its calls are described by the
 * same lt_shape as the wrapper's, made by the same builders
 * (lt/lt_shape.h), so the two sides cannot drift apart. The GPU tests
 * hold the wrapper, the kernels and the whole MLP step to these functions,
 * and the oracle is itself checked against central finite differences.
 */
#ifndef MNIST_EPILOGS_ORACLE_H
#define MNIST_EPILOGS_ORACLE_H

#include <stddef.h>
#include <stdint.h>

#include "layers/mlp_layout.h"
#include "lt/lt_shape.h"

/* The same call as lt_matmul_call (lt/lt_matmul.h), on host doubles. */
typedef struct oracle_call {
  lt_shape shape;
  const double *a;    /* op(A) (m, k) */
  const double *b;    /* op(B) (k, n) */
  double *d;          /* D (m, n), written */
  const double *bias; /* BIAS, RELU_AUX_BIAS: [m], read */
  double *bias_grad;  /* DRELU_BGRAD, DGELU_BGRAD, BGRADA: [m], BGRADB: [n],
                         written */
  uint8_t *aux;       /* RELU_AUX_BIAS: written; DRELU(_BGRAD): read */
  double *gelu_input; /* GELU_AUX_BIAS: Z written, (aux_ld, n);
                         DGELU(_BGRAD): read */
} oracle_call;

/* Computes what lt_matmul computes for the same call (see lt_matmul.h):
 * D = op(A) op(B) followed by the epilogue; writes only rows < m of D, only
 * the bits of rows < m of aux, and the bias gradient where one is due.
 * The ReLU bit is !(z < 0): exact zeros pass, NaN passes as NaN. GELU is
 * the tanh form of lt/lt_gelu.h, in double. */
void oracle_matmul(const oracle_call *call);

/* GELU (tanh form) and its derivative, in double. */
double oracle_gelu(double z);
double oracle_gelu_grad(double z);

/* Bit (i, j) of a cuBLASLt ReLU mask with aux_ld bits per column. */
int oracle_mask_bit(const uint8_t *aux, int aux_ld, int i, int j);

/* Softmax cross-entropy of logits (classes, n), ld `ld`: returns the
 * summed loss, adds argmax == label hits to *correct, writes dlogits
 * (classes, n), same ld, = (softmax - onehot) / n when dlogits is not
 * NULL. */
double oracle_xent(double *dlogits, int *correct, const double *logits, int ld,
                   const int *labels, int classes, int n);

/* What one oracle step computes. Optional outputs are NULL to skip. */
typedef struct oracle_step {
  double *grads;           /* the gradient slab (layout's offsets), written,
                              padding zeroed */
  double loss_sum;         /* summed loss over the batch */
  int correct;             /* argmax == label count */
  uint8_t *masks;          /* optional: each hidden layer's mask, one after
                              another (oracle_mask_bytes) */
  double *preacts;         /* optional: each hidden layer's pre-activation Z
                              (out, n), ld lt_ld(out), one after another
                              (oracle_preact_count) */
  double *logits;          /* optional: (classes, n), ld lt_ld(classes) */
  double *grad_magnitudes; /* optional: a slab like grads, each element the
                              sum of |terms| its gradient is a sum of (the
                              backward pass on absolute values): the scale
                              of its rounding error */
  /* Optional input: ReLU decisions (masks in the `masks` layout) to use in
   * place of the oracle's own, e.g. the GPU's: where a pre-activation is
   * within rounding of 0 the two may decide differently, and the
   * gradients are only comparable under the same decisions. `masks` still
   * receives the oracle's own; decisions_differ counts the bits that
   * differ from them. */
  const uint8_t *decisions;
  int decisions_differ;
  /* Input: the hidden layers' activation (zero: ReLU). With GELU there are
   * no masks or decisions, and grad_magnitudes is not supported. */
  lt_activation activation;
} oracle_step;

/* One whole MLP step, fused recipe (docs/backprop.md, "Every call of a step"):
 * forward, softmax cross-entropy, backward, every call built by the
 * lt_shape builders. params uses `layout`'s slab; x is (widths[0], n)
 * col-major, ld lt_ld(widths[0]); activations use lt_ld too. Returns 0, or -1
 * when host memory runs out. */
int oracle_mlp_step(oracle_step *out, const mlp_layout *layout,
                    const double *params, const double *x, const int *labels,
                    int n);

/* Bytes of oracle_step.masks and doubles of oracle_step.preacts for a
 * batch of n. */
size_t oracle_mask_bytes(const mlp_layout *layout, int n);
size_t oracle_preact_count(const mlp_layout *layout, int n);

#endif
