/* mlp_layout.h: where each layer's parameters live in the one parameter
 * slab (and, at the same offsets, in the gradient and velocity slabs).
 * Plain C, shared by the GPU MLP and the CPU oracle.
 *
 * Layer l maps widths[l] inputs to widths[l + 1] outputs. Its weights
 * W[out][in] row-major, i.e. Wt (in, out) col-major with ld = lt_ld(in)
 * (in rounded up to 8: lt/lt_shape.h), start at w_offset[l]; the padding
 * rows are zero and stay zero (their gradient is never written). Its bias
 * [out] starts at b_offset[l]. Offsets count elements, so the same layout
 * serves the FP32 master slab and the 16-bit copy and gradients; every
 * tensor starts on a 256-byte boundary in either (cuBLASLt needs 16 bytes;
 * its fastest kernels like more).
 */
#ifndef MNIST_EPILOGS_MLP_LAYOUT_H
#define MNIST_EPILOGS_MLP_LAYOUT_H

#include <stddef.h>

#define MLP_MAX_LAYERS 16
#define MLP_MAX_WIDTH 65536
#define MLP_ALIGN_FLOATS 128

typedef struct mlp_layout {
  int depth; /* number of linear layers */
  int widths[MLP_MAX_LAYERS +
             1]; /* widths[0] inputs .. widths[depth] classes */
  size_t w_offset[MLP_MAX_LAYERS]; /* elements into the slab */
  size_t b_offset[MLP_MAX_LAYERS];
  size_t slab_floats; /* slab length in elements, padding included */
  size_t param_count; /* real parameters */
} mlp_layout;

/* Fills `out` for widths[0..depth]. Returns 0, or -1 with `err` saying which
 * width or depth is out of range. */
int mlp_layout_init(mlp_layout *out, const int *widths, int depth, char *err,
                    size_t err_size);

/* Copies the parameters two layouts share, layer by layer: weights W[o][i]
 * and biases b[o] for o, i below both layouts' widths (a padded network's
 * real units, mlp_options.pad_units); the rest of dst is left as it is.
 * Both layouts must have the same depth. */
void mlp_layout_copy_params(const mlp_layout *dst_layout, float *dst,
                            const mlp_layout *src_layout, const float *src);

/* `floats` (elements) rounded up to a multiple of MLP_ALIGN_FLOATS (256
 * bytes in 16-bit, 512 in FP32): the
 * spacing of every tensor in the slabs and of every batch in a buffer. */
size_t mlp_align_floats(size_t floats);

#endif
