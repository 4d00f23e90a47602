/* mlp_layout.c: offsets of the parameter slab. */
#include "mlp_layout.h"

#include <stdio.h>
#include <string.h>

#include "../gpu/lt_shape.h"

size_t mlp_align_floats(size_t floats) {
  return (floats + MLP_ALIGN_FLOATS - 1) / MLP_ALIGN_FLOATS * MLP_ALIGN_FLOATS;
}

int mlp_layout_init(mlp_layout *out, const int *widths, int depth, char *err,
                    size_t err_size) {
  memset(out, 0, sizeof *out);
  if (depth < 1 || depth > MLP_MAX_LAYERS) {
    snprintf(err, err_size, "expected 1 to %d layers, found %d", MLP_MAX_LAYERS,
             depth);
    return -1;
  }
  for (int l = 0; l <= depth; l++) {
    if (widths[l] < 1 || widths[l] > MLP_MAX_WIDTH) {
      snprintf(err, err_size, "expected layer widths from 1 to %d, found %d",
               MLP_MAX_WIDTH, widths[l]);
      return -1;
    }
    out->widths[l] = widths[l];
  }
  out->depth = depth;
  size_t at = 0;
  for (int l = 0; l < depth; l++) {
    size_t in = (size_t)widths[l], outs = (size_t)widths[l + 1];
    out->w_offset[l] = at;
    at = mlp_align_floats(at + (size_t)lt_ld((int)in) * outs);
    out->b_offset[l] = at;
    at = mlp_align_floats(at + outs);
    out->param_count += in * outs + outs;
  }
  out->slab_floats = at;
  return 0;
}
