/* xent.h: the loss: softmax cross-entropy over a batch of logits, its
 * gradient at the logits, and the count of correct predictions. */
#ifndef MNIST_EPILOGS_XENT_H
#define MNIST_EPILOGS_XENT_H

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Over d_logits (classes, n), ld = classes: if d_dlogits, writes
 * d_dlogits (classes, n) = (softmax - onehot(label)) / n; adds the summed
 * loss to d_stats[0] and the number of argmax == label to d_stats[1] (+=).
 * One block, fixed reduction order: deterministic. On `stream`; returns 0
 * or -1 (message on stderr). */
int xent_loss_grad(float *d_dlogits, double *d_stats, const float *d_logits,
                   const int *d_labels, int classes, int n,
                   cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
