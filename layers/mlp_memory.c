/* mlp_memory.c: the GPU bytes of an MLP, overflow-checked (mlp_memory.h). */
#include "layers/mlp_memory.h"

#include <stdint.h>
#include <stdio.h>

/* *acc += a * b, or -1 (acc unchanged) when either step overflows. */
static int add_product(size_t *acc, size_t a, size_t b) {
  if (a != 0 && b > SIZE_MAX / a) return -1;
  if (a * b > SIZE_MAX - *acc) return -1;
  *acc += a * b;
  return 0;
}

/* x rounded up to a multiple of `to`, or -1 on overflow. */
static int round_up(size_t *x, size_t to) {
  if (*x > SIZE_MAX - (to - 1)) return -1;
  *x = (*x + to - 1) / to * to;
  return 0;
}

/* One layer's aux bytes for max_batch columns, rounded up to 256 (mlp.c's
 * aux_stride): a bit-mask (lt_aux_ld bits a column) for ReLU, the GELU
 * input in the storage type. */
static int aux_bytes(size_t *out, int rows, size_t max_batch, lt_dtype type,
                     lt_activation activation) {
  size_t column = activation == LT_ACTIVATION_GELU
                      ? (size_t)lt_ld(rows) * lt_dtype_size(type)
                      : (size_t)lt_aux_ld(rows) / 8;
  *out = 0;
  if (add_product(out, column, max_batch) != 0) return -1;
  return round_up(out, 256);
}

int mlp_memory_need(mlp_memory *out, const mlp_layout *layout, size_t max_batch,
                    lt_dtype type, lt_activation activation, int inference_only,
                    size_t scratch) {
  size_t size = lt_dtype_size(type), floats = layout->slab_floats;
  mlp_memory m = {0};
  /* d_params (FP32); d_grads (typed) and d_velocity (FP32) when training;
   * d_params_copy (typed) in 16 bits. */
  if (add_product(&m.slabs, floats, sizeof(float)) != 0) return -1;
  if (!inference_only && (add_product(&m.slabs, floats, size) != 0 ||
                          add_product(&m.slabs, floats, sizeof(float)) != 0))
    return -1;
  if (type != LT_DTYPE_F32 && add_product(&m.slabs, floats, size) != 0)
    return -1;
  size_t tensors = inference_only ? 1 : 2;
  for (int l = 0; l < layout->depth; l++) {
    int rows = layout->widths[l + 1];
    size_t elements = 0, aux = 0;
    if (add_product(&elements, (size_t)lt_ld(rows), max_batch) != 0 ||
        round_up(&elements, MLP_ALIGN_FLOATS) != 0 ||
        add_product(&m.activations, tensors * size, elements) != 0 ||
        aux_bytes(&aux, rows, max_batch, type, activation) != 0 ||
        add_product(&m.activations, aux, 1) != 0)
      return -1;
  }
  if (add_product(&m.activations, scratch, 1) != 0) return -1;
  m.total = m.slabs;
  if (add_product(&m.total, m.activations, 1) != 0) return -1;
  *out = m;
  return 0;
}

static double gib(size_t bytes) {
  return (double)bytes / (1024.0 * 1024.0 * 1024.0);
}

void mlp_memory_message(char *out, size_t size, const mlp_memory *need,
                        size_t free_bytes, size_t total_bytes, int max_batch) {
  snprintf(out, size,
           "not enough GPU memory: the network and a batch of %d need %.1f "
           "GiB (parameters, gradients and momentum %.1f GiB; activations "
           "for the batch %.1f GiB), the GPU has %.1f GiB free of %.1f GiB; "
           "hint: reduce the batch (--batch) or the hidden widths (--hidden)",
           max_batch, gib(need->total), gib(need->slabs),
           gib(need->activations), gib(free_bytes), gib(total_bytes));
}
