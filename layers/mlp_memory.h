/* mlp_memory.h: the GPU memory an MLP needs, counted before anything is
 * allocated (so that a network too big for the GPU is refused with both
 * numbers, not with a failed cudaMalloc), and the message that says so.
 * Plain C: the sizes mirror mlp.c's allocations, with every product and
 * sum checked for overflow. */
#ifndef MNIST_EPILOGS_MLP_MEMORY_H
#define MNIST_EPILOGS_MLP_MEMORY_H

#include <stddef.h>

#include "layers/mlp_layout.h"
#include "lt/lt_shape.h"

typedef struct mlp_memory {
  size_t slabs;       /* FP32 parameters, their 16-bit copy, gradients and
                         momentum (training only) */
  size_t activations; /* per layer d_y (and d_dz when training), the aux
                         (ReLU masks or GELU inputs), the loss scratch */
  size_t total;       /* slabs + activations */
} mlp_memory;

/* What mlp_create allocates for `layout` and batches of up to max_batch in
 * storage `type` with `activation`, training or not, plus scratch bytes
 * (xent_scratch_bytes). Returns 0, or -1 when a size overflows size_t. */
int mlp_memory_need(mlp_memory *out, const mlp_layout *layout, size_t max_batch,
                    lt_dtype type, lt_activation activation, int inference_only,
                    size_t scratch);

/* Writes the refusal for `need` against free_bytes of the GPU's
 * total_bytes: both in GiB, the batch, what to reduce (--batch, --hidden). */
void mlp_memory_message(char *out, size_t size, const mlp_memory *need,
                        size_t free_bytes, size_t total_bytes, int max_batch);

#endif
