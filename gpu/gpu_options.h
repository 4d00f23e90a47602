/* gpu_options.h: how a GPU context is set up: the device, the matmul math
 * and how the cuBLASLt wrapper picks its algorithms. Plain C, no CUDA
 * headers, so the option parsers hold these values directly. */
#ifndef MNIST_EPILOGS_GPU_OPTIONS_H
#define MNIST_EPILOGS_GPU_OPTIONS_H

#include "gpu/lt_shape.h"

/* The matmul precision of a context: the storage type of every matrix the
 * wrapper reads or writes, and cuBLASLt's compute type. BF16 and FP16 are
 * mixed precision: the layers keep FP32 master weights (layers/mlp.h). */
typedef enum gpu_precision {
  GPU_PRECISION_FP32, /* FP32 storage, CUBLAS_COMPUTE_32F */
  GPU_PRECISION_TF32, /* FP32 storage, CUBLAS_COMPUTE_32F_FAST_TF32 */
  GPU_PRECISION_BF16, /* BF16 storage, CUBLAS_COMPUTE_32F */
  GPU_PRECISION_FP16, /* FP16 storage, CUBLAS_COMPUTE_32F */
  GPU_PRECISION_COUNT
} gpu_precision;

/* The default loss scale of FP16: a power of two (scaling is exact). With
 * batch n the loss gradient at the logits is at most 1/n; times 1024 it
 * stays far below FP16's largest value (65504) at every batch, while
 * gradients down to 6e-8 / 1024 stay representable instead of flushing to
 * zero below FP16's smallest subnormal. */
#define GPU_FP16_LOSS_SCALE 1024.0f

/* "fp32", "tf32", "bf16", "fp16" (the --precision values). */
const char *gpu_precision_name(gpu_precision precision);
/* The value named `name`; -1 when none is. */
int gpu_precision_parse(const char *name);
/* The storage type of the precision's matrices. */
lt_dtype gpu_precision_dtype(gpu_precision precision);

/* How the wrapper picks an algorithm when it builds a plan. */
typedef enum gpu_autotune {
  GPU_AUTOTUNE_OFF,   /* the heuristic's first choice */
  GPU_AUTOTUNE_EXACT, /* the fastest candidate whose outputs (D, bias
                         gradient, ReLU mask) are bitwise the first
                         choice's: timing never changes the numbers, so
                         runs stay reproducible. FP32 storage only: a
                         16-bit output hides summation-order differences,
                         so 16-bit plans keep the first choice */
  GPU_AUTOTUNE_FAST   /* the fastest candidate whose D and bias gradient are
                         within rounding of the first choice's (split-K and
                         other summation orders too): the choice follows
                         timing noise, so two runs may differ in the last
                         bits */
} gpu_autotune;

typedef struct gpu_options {
  int device; /* CUDA device ordinal */
  gpu_precision precision;
  gpu_autotune autotune;
} gpu_options;

/* Device 0, FP32, autotune exact. */
gpu_options gpu_options_defaults(void);

const char *gpu_autotune_name(gpu_autotune autotune);

/* The values a --autotune flag takes ("exact", "fast", "off"),
 * NULL-terminated, and the mode the index-th of them names. */
const char *const *gpu_autotune_choices(void);
gpu_autotune gpu_autotune_choice(int index);

#endif
