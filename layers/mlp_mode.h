/* mlp_mode.h: how the layers make their calls, and in which pass. Plain C, no
 * CUDA headers, so the option parsers hold it. */
#ifndef MNIST_EPILOGS_MLP_MODE_H
#define MNIST_EPILOGS_MLP_MODE_H

#include "lt/lt_probe.h"

typedef enum mlp_mode {
  MLP_MODE_FUSED,   /* cuBLASLt epilogues (lt_matmul) */
  MLP_MODE_UNFUSED, /* plain matmul + one kernel per epilogue step
                       (lt_matmul_unfused) */
  MLP_MODE_AUTO     /* per call, the fastest of fused, unfused and (for
                       DRELU_BGRAD / DGELU_BGRAD) split, timed at plan
                       time (lt_matmul_auto_on) */
} mlp_mode;

/* A forward pass of a training step, or an evaluation pass. */
typedef enum mlp_pass { MLP_PASS_TRAIN, MLP_PASS_EVAL } mlp_pass;

/* "fused", "unfused", "auto". */
const char *mlp_mode_name(mlp_mode mode);

/* The ways the mode makes its calls, for the start-up probe
 * (lt_run_epilogues): fused, unfused, or both for auto. */
lt_run_ways mlp_mode_ways(mlp_mode mode);

#endif
