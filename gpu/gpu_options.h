/* gpu_options.h: how a GPU context is set up: the device, the matmul math
 * and how the cuBLASLt wrapper picks its algorithms. Plain C, no CUDA
 * headers, so the option parsers hold these values directly. */
#ifndef MNIST_EPILOGS_GPU_OPTIONS_H
#define MNIST_EPILOGS_GPU_OPTIONS_H

#include <stddef.h>

/* The matmul precision of a context: the storage type of every matrix the
 * wrapper reads or writes, and cuBLASLt's compute type. BF16 and FP16 are
 * mixed precision: the layers keep FP32 master weights (layers/mlp.h). */
typedef enum gpu_precision {
  GPU_PRECISION_FP32, /* FP32 storage, CUBLAS_COMPUTE_32F */
  GPU_PRECISION_TF32, /* FP32 storage, CUBLAS_COMPUTE_32F_FAST_TF32 */
  GPU_PRECISION_BF16, /* BF16 storage, CUBLAS_COMPUTE_32F */
  GPU_PRECISION_FP16, /* FP16 storage, CUBLAS_COMPUTE_32F */
  GPU_PRECISION_FP8,  /* FP8 matmul operands (E4M3 / E5M2, per-tensor
                         scales), BF16 outputs and activations,
                         CUBLAS_COMPUTE_32F: layers/mlp_fp8.h */
  GPU_PRECISION_COUNT
} gpu_precision;

/* The default loss scale of FP16: a power of two (scaling is exact). With
 * batch n the loss gradient at the logits is at most 1/n; times 1024 it
 * stays far below FP16's largest value (65504) at every batch, while
 * gradients down to 6e-8 / 1024 stay representable instead of flushing to
 * zero below FP16's smallest subnormal. */
#define GPU_FP16_LOSS_SCALE 1024.0f

/* "fp32", "tf32", "bf16", "fp16", "fp8" (the --precision values). */
const char *gpu_precision_name(gpu_precision precision);
/* The value named `name`; -1 when none is. */
int gpu_precision_parse(const char *name);

/* Which of cuBLASLt's candidates the step tuner (train/step_tune.h) may
 * choose for a call, timing the whole step (lt/lt_autotune.h says how the
 * rule is checked). */
typedef enum gpu_autotune {
  GPU_AUTOTUNE_OFF,   /* only the heuristic's first choice */
  GPU_AUTOTUNE_EXACT, /* those whose outputs (D, bias gradient, ReLU mask or
                         GELU input) are bitwise the first choice's, on the
                         call's buffers and on a probe that exposes the
                         summation order, in every precision: timing never
                         changes the numbers */
  GPU_AUTOTUNE_FAST   /* those whose D and bias gradient are within
                         rounding of the first choice's (split-K and other
                         summation orders too): two runs may differ in the
                         last bits */
} gpu_autotune;

/* How the training step's kernels are chained (issue 20): bits of
 * gpu_options.chain, each a scheduling change only (same kernels, same
 * arithmetic, so results are bit for bit those of GPU_CHAIN_NONE).
 *   SIDE_PARTIALS  the unfused DRELU_BGRAD / DGELU_BGRAD adds its row-sum
 *                  partials on the side lane, from the network's own
 *                  buffers, so the main lane's next kernel starts right
 *                  after the row sums (layers/mlp.c, lt/lt_unfused.c)
 *   SGD_LANE       the first layer's weight gradient runs on the main lane,
 *                  the lane of SGD, so SGD follows it in stream order and
 *                  starts early (layers/mlp.c)
 *   PRIORITIES     the main lane's stream has the device's greatest
 *                  priority, the side lane's the least, and the trainer's
 *                  graphs are instantiated with node priorities (read once,
 *                  when the context is created: gpu_context.c)
 *   TRIGGER        the project's kernels call
 *                  cudaTriggerProgrammaticLaunchCompletion (gpu_launch.cuh)
 * Measured on the H200 (docs/performance.md, "The step's chain"): all four
 * together shorten most small-network rows (784-100-10 and
 * 784-1024-1024-10 at batch 256: ReLU BF16 auto+pad 1.09x and 1.07x, the
 * default run 1.12x) but slow others (784-1024-1024-10 FP16 auto 0.95x,
 * FP32 GELU 0.93-0.98x; 784-4096-4096-10 BF16 auto 0.99x), so the default
 * stays GPU_CHAIN_NONE: no row of the benchmark slower.
 */
enum {
  GPU_CHAIN_NONE = 0,
  GPU_CHAIN_SIDE_PARTIALS = 1 << 0,
  GPU_CHAIN_SGD_LANE = 1 << 1,
  GPU_CHAIN_PRIORITIES = 1 << 2,
  GPU_CHAIN_TRIGGER = 1 << 3,
  GPU_CHAIN_ALL = (1 << 4) - 1
};

typedef struct gpu_options {
  int device;              /* CUDA device ordinal */
  gpu_precision precision; /* FP8's recipe is the layer's: fp8_recipe,
                              layers/fp8.h */
  gpu_autotune autotune;
  unsigned chain; /* GPU_CHAIN_* bits; default GPU_CHAIN_NONE */
} gpu_options;

/* Parses a --chain value: "none", "all", or a comma-separated list of
 * "side-partials", "sgd-lane", "priorities", "trigger" (each at most once).
 * Returns 0 with *chain set, or -1 with `err` naming what was found. */
int gpu_chain_parse(unsigned *chain, const char *text, char *err,
                    size_t err_size);

/* The --chain spelling of `chain` ("none", or the names joined by
 * commas, in the order above) into out[0..size). */
void gpu_chain_format(char *out, size_t size, unsigned chain);

/* Device 0, FP32, autotune exact, chain none. */
gpu_options gpu_options_defaults(void);

const char *gpu_autotune_name(gpu_autotune autotune);

/* The values a --autotune flag takes ("exact", "fast", "off"),
 * NULL-terminated, and the mode the index-th of them names. */
const char *const *gpu_autotune_choices(void);
gpu_autotune gpu_autotune_choice(int index);

#endif
