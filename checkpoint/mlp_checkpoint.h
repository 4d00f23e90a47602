/* mlp_checkpoint.h: the MLP's parameters as a safetensors file laid out
 * like the state dict of PyTorch's nn.Sequential(nn.Linear, activation,
 * ..., nn.Linear): layer l (0-based) is module 2l, its tensors "2l.weight"
 * (out, in) row-major and "2l.bias" (out). Plain C.
 *
 * The host slab follows mlp_layout (layers/mlp_layout.h): layer l's
 * W[o][i] is slab[w_offset[l] + o * lt_ld(in) + i] (Wt (in, out)
 * col-major with ld = lt_ld(in): row-major (out, in) with a padded row
 * stride), its bias[o] is slab[b_offset[l] + o]. Saving copies each row's
 * first `in` floats; loading puts them back and leaves the padding zero.
 */
#ifndef MNIST_EPILOGS_MLP_CHECKPOINT_H
#define MNIST_EPILOGS_MLP_CHECKPOINT_H

#include <stddef.h>

#include "checkpoint/mlp_checkpoint_meta.h"
#include "layers/mlp_layout.h"

typedef struct mlp_checkpoint {
  mlp_layout layout; /* depth and widths[0 .. depth] as found in the file */
  float *slab;       /* [layout.slab_floats] in that layout, padding zero */
  mlp_checkpoint_meta meta; /* what the file's metadata says */
} mlp_checkpoint;

/* Writes the parameters in `slab` ([layout->slab_floats]) to `path`, with
 * `meta`'s known entries (NULL: none) besides "format" and "widths"
 * (always written, from the layout). Atomic (safetensors_write). Refuses
 * non-finite parameters. Returns 0, or -1 with `err` naming the path. */
int mlp_checkpoint_save(const char *path, const mlp_layout *layout,
                        const float *slab, const mlp_checkpoint_meta *meta,
                        char *err, size_t err_size);

/* Reads `path` into *out: the widths from the tensors' shapes (layers at
 * module indices 0, 2, 4, ... with no gap and no other tensor, each
 * layer's inputs the previous one's outputs), a calloc'd slab in their
 * layout, the metadata. With `want_widths` ([want_depth + 1]) the file's
 * widths must equal them; NULL takes the file's. Every value must be
 * finite. Returns 0, or -1 with `err` "PATH: expected ..., found ..." and
 * *out empty (slab NULL). */
int mlp_checkpoint_load(const char *path, const int *want_widths,
                        int want_depth, mlp_checkpoint *out, char *err,
                        size_t err_size);

/* Frees the slab (slab NULL after); a no-op on NULL. */
void mlp_checkpoint_destroy(mlp_checkpoint *checkpoint);

/* "784-1024-1024-10" for widths[0 .. depth]. */
void mlp_checkpoint_widths_text(char *out, size_t size, const int *widths,
                                int depth);

#endif
