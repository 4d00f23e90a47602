/* sgd.h: the optimiser: SGD with momentum over one contiguous slab of
 * parameters, one kernel per step, FP32 master weights whatever the matmul
 * precision. */
#ifndef MNIST_EPILOGS_SGD_H
#define MNIST_EPILOGS_SGD_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#include "gpu/gpu_early.h"
#include "lt/lt_shape.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sgd_slabs {
  float *d_params;     /* FP32 master weights, read and written */
  float *d_velocity;   /* FP32 momentum, read and written */
  const void *d_grads; /* gradients in `type`, read */
  void *d_copy;        /* the matmuls' copy of the weights in `type`,
                          written; NULL for FP32 (they read d_params) */
  lt_dtype type;       /* of d_grads and d_copy */
  size_t count;        /* elements of each slab */
} sgd_slabs;

/* g = grads * grad_unscale (1 / the loss scale); v = momentum * v + g;
 * p -= lr * v; copy = p rounded to `type`: one pass, so the 16-bit copy
 * costs no extra kernel. lr = *d_lr is read on the GPU (a schedule changes
 * it without touching a captured graph). With momentum == 0 the velocity
 * is unused: p -= lr * g. Slabs are 16-byte aligned; a count that is a
 * multiple of 4 takes four elements per thread (16-byte loads of the FP32
 * slabs, 8-byte loads of 16-bit gradients). On `stream`, starting early
 * where `early` allows (gpu/gpu_early.h; NULL: never); returns 0 or -1
 * (message on stderr). */
int sgd_update(const sgd_slabs *slabs, const float *d_lr, float momentum,
               float grad_unscale, gpu_early_cache *early, cudaStream_t stream);

/* copy = params rounded to `type` over the slab (after initialisation or
 * a load); a no-op when d_copy is NULL. On `stream`; returns 0 or -1. */
int sgd_write_copy(const sgd_slabs *slabs, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
