/* mlp_mode.c: names of the modes (mlp_mode.h). */
#include "layers/mlp_mode.h"

const char *mlp_mode_name(mlp_mode mode) {
  return mode == MLP_MODE_UNFUSED ? "unfused"
         : mode == MLP_MODE_AUTO  ? "auto"
                                  : "fused";
}
