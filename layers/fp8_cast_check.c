/* fp8_cast_check.c: the cast kernel's limits (fp8_cast.h), checked on the host.
 * Plain C: tests/test_fp8_cast_check.c holds each rule without a GPU. */
#include <stddef.h>

#include "layers/fp8_cast.h"
#include "lt/lt_shape.h"

const char *fp8_cast_refusal(const fp8_cast_args *a) {
  size_t size = a->src_type == LT_DTYPE_F32 ? 4 : 2;
  if (a->src_type != LT_DTYPE_BF16 && a->src_type != LT_DTYPE_F32)
    return "a BF16 or FP32 source";
  if (a->mask != FP8_MASK_NONE && a->src_type != LT_DTYPE_BF16)
    return "a BF16 source with a mask";
  if (a->rows < 16 || a->rows % 16 || a->cols < 1 || !a->d_meta)
    return "rows a multiple of 16, cols >= 1 and a scaling state";
  if (a->blocks < 0) return "blocks >= 0 (0: as many as the GPU holds)";
  if (!fp8_aligned16(a->d_src) || a->ld_src < a->rows ||
      (size_t)a->ld_src * size % 16)
    return "a 16-byte aligned source with 16-byte columns (ld_src)";
  if (a->mask == FP8_MASK_RELU &&
      (!fp8_aligned16(a->d_aux) || a->aux_ld % 128 || a->aux_ld < a->rows))
    return "a ReLU mask with aux_ld a multiple of 128 bits, >= rows";
  if (a->mask == FP8_MASK_GELU &&
      (!fp8_aligned16(a->d_aux) || a->aux_ld % 8 || a->aux_ld < a->rows))
    return "a GELU input with aux_ld a multiple of 8, >= rows";
  if (a->d_out &&
      (!fp8_aligned16(a->d_out) || a->ld_out % 16 || a->ld_out < a->rows))
    return "an output with ld_out a multiple of 16, >= rows";
  if (a->d_out_t && (!fp8_aligned16(a->d_out_t) || a->ld_out_t % 16 ||
                     a->ld_out_t < lt_ld_fp8(a->cols)))
    return "a transposed output with ld_out_t a multiple of 16, >= cols";
  return NULL;
}
