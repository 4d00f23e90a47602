/* mlp_mode.h: how the layers make their calls. Plain C, no CUDA headers,
 * so the option parsers hold it. */
#ifndef MNIST_EPILOGS_MLP_MODE_H
#define MNIST_EPILOGS_MLP_MODE_H

typedef enum mlp_mode {
  MLP_MODE_FUSED,  /* cuBLASLt epilogues (lt_matmul) */
  MLP_MODE_UNFUSED /* plain matmul + one kernel per epilogue step
                      (lt_matmul_unfused) */
} mlp_mode;

/* "fused" / "unfused". */
const char *mlp_mode_name(mlp_mode mode);

#endif
