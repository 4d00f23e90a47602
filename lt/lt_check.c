/* lt_check.c: lt_matmul_check (lt_matmul.h), the rules a call's pointers
 * follow before cuBLASLt sees it: the shape's rules (lt_shape_check),
 * non-NULL operands, 16-byte alignment, and exactly the pointers the
 * epilogue and the FP8 types use (a stray pointer would be set on the
 * descriptor and read or written by a later plan). */
#include <stdint.h>

#include "lt/lt_matmul.h"
#include "lt/lt_refuse.h"

static int misaligned(const void *p) {
  return ((uintptr_t)p & 15u) != 0;
}

int lt_matmul_check(gpu_context *ctx, const lt_matmul_call *c) {
  const lt_shape *s = &c->shape;
  char why[256];
  if (lt_shape_check(s, why, sizeof why) != 0)
    return lt_refuse(ctx, s, "%s", why);
  lt_epilogue e = s->epilogue;
  const char *name = lt_epilogue_name(e);
  if (!c->d_a || !c->d_b || !c->d_d)
    return lt_refuse(ctx, s, "expected non-NULL A, B and D");
  if (misaligned(c->d_a) || misaligned(c->d_b) || misaligned(c->d_d) ||
      misaligned(c->d_bias) || misaligned(c->d_bias_grad) ||
      misaligned(c->d_aux))
    return lt_refuse(ctx, s, "expected every pointer 16-byte aligned");
  if (lt_epilogue_reads_bias(e) != (c->d_bias != NULL))
    return lt_refuse(ctx, s,
                     c->d_bias ? "%s takes no bias pointer"
                               : "%s expects a bias pointer",
                     name);
  if (lt_epilogue_writes_bias_grad(e) != (c->d_bias_grad != NULL))
    return lt_refuse(ctx, s,
                     c->d_bias_grad ? "%s takes no bias-gradient pointer"
                                    : "%s expects a bias-gradient pointer",
                     name);
  int fp8 = lt_shape_is_fp8(s);
  if (fp8 != (c->d_a_scale != NULL) || fp8 != (c->d_b_scale != NULL))
    return lt_refuse(ctx, s,
                     fp8 ? "an FP8 call expects both scale pointers (A_SCALE, "
                           "B_SCALE: the scale_inv of each operand)"
                         : "a %s call takes no scale pointers (FP8 only)",
                     lt_dtype_name(s->type));
  /* Measured on the H200 (CUDA 13.0): with a scale pointer 4 bytes past a
   * 16-byte boundary the heuristic still plans the call, but cublasLtMatmul
   * returns NOT_SUPPORTED. */
  if (misaligned(c->d_a_scale) || misaligned(c->d_b_scale))
    return lt_refuse(ctx, s,
                     "expected the scale pointers 16-byte aligned (a 4-byte "
                     "aligned one makes cublasLtMatmul return NOT_SUPPORTED, "
                     "measured)");
  int d8 = s->d_fp8 != LT_FP8_NONE;
  if (d8 != (c->d_d_scale != NULL) || d8 != (c->d_amax_d != NULL) ||
      d8 != (c->d_c != NULL))
    return lt_refuse(ctx, s,
                     d8 ? "an FP8 D expects its scale, amax and BF16 C "
                          "pointers (D_SCALE, AMAX_D, C)"
                        : "a call with D in %s takes no D scale, amax or C "
                          "pointers (FP8 D only)",
                     lt_dtype_name(s->type));
  if (misaligned(c->d_d_scale) || misaligned(c->d_amax_d) || misaligned(c->d_c))
    return lt_refuse(ctx, s,
                     "expected the D scale, amax and C pointers 16-byte "
                     "aligned, as the A and B scale pointers");
  if (lt_epilogue_uses_aux(e) != (c->d_aux != NULL))
    return lt_refuse(ctx, s,
                     c->d_aux ? "%s takes no aux pointer"
                     : lt_epilogue_aux_is_mask(e)
                         ? "%s expects an aux (ReLU bit-mask) pointer"
                         : "%s expects an aux (GELU input) pointer",
                     name);
  return 0;
}
