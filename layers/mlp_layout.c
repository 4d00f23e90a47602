/* mlp_layout.c: offsets of the parameter slab. */
#include "layers/mlp_layout.h"

#include <stdio.h>
#include <string.h>

#include "lt/lt_shape.h"

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

void mlp_layout_copy_params(const mlp_layout *dst_layout, float *dst,
                            const mlp_layout *src_layout, const float *src) {
  for (int l = 0; l < dst_layout->depth && l < src_layout->depth; l++) {
    int in_d = dst_layout->widths[l], in_s = src_layout->widths[l];
    int out_d = dst_layout->widths[l + 1], out_s = src_layout->widths[l + 1];
    int in = in_d < in_s ? in_d : in_s, out = out_d < out_s ? out_d : out_s;
    for (int o = 0; o < out; o++) {
      for (int i = 0; i < in; i++)
        dst[dst_layout->w_offset[l] + (size_t)o * lt_ld(in_d) + i] =
            src[src_layout->w_offset[l] + (size_t)o * lt_ld(in_s) + i];
      dst[dst_layout->b_offset[l] + o] = src[src_layout->b_offset[l] + o];
    }
  }
}
