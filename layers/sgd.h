/* sgd.h: the optimiser: SGD with momentum over one contiguous slab of
 * parameters, one kernel per step. */
#ifndef MNIST_EPILOGS_SGD_H
#define MNIST_EPILOGS_SGD_H

#include <cuda_runtime_api.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* v = momentum * v + g; p -= lr * v over count floats, with lr = *d_lr read
 * on the GPU (a schedule changes it without touching a captured graph).
 * With momentum == 0 the velocity is unused: p -= lr * g. Slabs are
 * 16-byte aligned; a count that is a multiple of 4 takes float4 loads. On
 * `stream`; returns 0 or -1 (message on stderr). */
int sgd_update(float *d_params, float *d_velocity, const float *d_grads,
               size_t count, const float *d_lr, float momentum,
               cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
