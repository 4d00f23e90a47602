/* mlp_mode.h: how the layers make their calls. Plain C, no CUDA headers,
 * so the option parsers hold it. */
#ifndef MNIST_EPILOGS_MLP_MODE_H
#define MNIST_EPILOGS_MLP_MODE_H

typedef enum mlp_mode {
  MLP_MODE_FUSED,   /* cuBLASLt epilogues (lt_matmul) */
  MLP_MODE_UNFUSED, /* plain matmul + one kernel per epilogue step
                       (lt_matmul_unfused) */
  MLP_MODE_AUTO     /* per call, the faster of the two, timed at plan time
                       (lt_matmul_auto_on) */
} mlp_mode;

/* "fused", "unfused", "auto". */
const char *mlp_mode_name(mlp_mode mode);

#endif
