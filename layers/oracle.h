/* oracle.h: the plain-C reference for every fused step, in double
 * precision and in exactly the GPU's layouts (column-major, W stored as Wt
 * (in, out), the cuBLASLt ReLU bit-mask). The GPU tests hold the wrapper,
 * the kernels and the whole MLP step to these functions, and the oracle is
 * itself checked against central finite differences.
 */
#ifndef MNIST_EPILOGS_ORACLE_H
#define MNIST_EPILOGS_ORACLE_H

#include <stddef.h>
#include <stdint.h>

#include "../gpu/lt_call.h"
#include "mlp_layout.h"

/* The same call as lt_matmul_call, on host doubles. */
typedef struct oracle_call {
  int m, n, k;
  int transa, transb;
  const double *a; /* op(A) (m, k) */
  int lda;
  const double *b; /* op(B) (k, n) */
  int ldb;
  double *d;       /* D (m, n), written */
  int ldd;
  lt_epilogue epilogue;
  double *bias;    /* as lt_matmul_call.d_bias */
  uint8_t *aux;    /* as lt_matmul_call.d_aux */
  int aux_ld;
} oracle_call;

/* Computes what lt_matmul computes for the same call (see lt_matmul.h):
 * D = op(A) op(B) followed by the epilogue; writes only rows < m of D, only
 * the bits of rows < m of aux, and the bias gradient where one is due. */
void oracle_matmul(const oracle_call *call);

/* Bit (i, j) of a cuBLASLt ReLU mask with aux_ld bits per column. */
int oracle_mask_bit(const uint8_t *aux, int aux_ld, int i, int j);

/* Softmax cross-entropy of logits (classes, n): returns the summed loss,
 * adds argmax == label hits to *correct, writes dlogits = (softmax -
 * onehot) / n when dlogits is not NULL. */
double oracle_xent(double *dlogits, int *correct, const double *logits,
                   const int *labels, int classes, int n);

/* One whole MLP step, fused recipe (DESIGN.md section 2): forward,
 * softmax cross-entropy, backward. params and grads use `layout`'s slab;
 * grads are written (padding zeroed). x is (widths[0], n) col-major.
 * *loss_sum gets the summed loss, *correct the hits. If masks is not NULL,
 * the hidden layers' masks are written there one after another
 * (oracle_mask_bytes). Returns 0, or -1 when host memory runs out. */
int oracle_mlp_step(double *grads, double *loss_sum, int *correct,
                    uint8_t *masks, const mlp_layout *layout,
                    const double *params, const double *x, const int *labels,
                    int n);

/* Bytes oracle_mlp_step writes to `masks` for a batch of n. */
size_t oracle_mask_bytes(const mlp_layout *layout, int n);

#endif
