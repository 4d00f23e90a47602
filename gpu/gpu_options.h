/* gpu_options.h: how a GPU context is set up: the device, the matmul math
 * and how the cuBLASLt wrapper picks its algorithms. Plain C, no CUDA
 * headers, so the option parsers hold these values directly. */
#ifndef MNIST_EPILOGS_GPU_OPTIONS_H
#define MNIST_EPILOGS_GPU_OPTIONS_H

/* How the wrapper picks an algorithm when it builds a plan. */
typedef enum gpu_autotune {
  GPU_AUTOTUNE_OFF,   /* the heuristic's first choice */
  GPU_AUTOTUNE_EXACT, /* the fastest candidate whose outputs (D, bias
                         gradient, ReLU mask) are bitwise the first
                         choice's: timing never changes the numbers, so
                         runs stay reproducible */
  GPU_AUTOTUNE_FAST   /* the fastest candidate whose D and bias gradient are
                         within rounding of the first choice's (split-K and
                         other summation orders too): the choice follows
                         timing noise, so two runs may differ in the last
                         bits */
} gpu_autotune;

typedef struct gpu_options {
  int device; /* CUDA device ordinal */
  int tf32;   /* 1: matmuls in TF32 (CUBLAS_COMPUTE_32F_FAST_TF32) */
  gpu_autotune autotune;
} gpu_options;

/* Device 0, FP32, autotune exact. */
gpu_options gpu_options_defaults(void);

const char *gpu_autotune_name(gpu_autotune autotune);

#endif
