/* mlp_mode.c: names of the modes (mlp_mode.h). */
#include "layers/mlp_mode.h"

const char *mlp_mode_name(mlp_mode mode) {
  return mode == MLP_MODE_UNFUSED ? "unfused"
         : mode == MLP_MODE_AUTO  ? "auto"
                                  : "fused";
}

lt_run_ways mlp_mode_ways(mlp_mode mode) {
  return mode == MLP_MODE_UNFUSED ? LT_RUN_UNFUSED
         : mode == MLP_MODE_AUTO  ? LT_RUN_BOTH
                                  : LT_RUN_FUSED;
}
