/* lt_shape.c: call shapes, their builders and cuBLASLt's shape rules. */
#include "gpu/lt_shape.h"

#include <stdio.h>

const char *lt_epilogue_name(lt_epilogue epilogue) {
  switch (epilogue) {
  case LT_EPILOGUE_DEFAULT: return "DEFAULT";
  case LT_EPILOGUE_BIAS: return "BIAS";
  case LT_EPILOGUE_RELU_AUX_BIAS: return "RELU_AUX_BIAS";
  case LT_EPILOGUE_DRELU_BGRAD: return "DRELU_BGRAD";
  case LT_EPILOGUE_BGRADB: return "BGRADB";
  case LT_EPILOGUE_GELU_AUX_BIAS: return "GELU_AUX_BIAS";
  case LT_EPILOGUE_DGELU_BGRAD: return "DGELU_BGRAD";
  case LT_EPILOGUE_DRELU: return "DRELU";
  case LT_EPILOGUE_DGELU: return "DGELU";
  case LT_EPILOGUE_BGRADA: return "BGRADA";
  case LT_EPILOGUE_COUNT: break;
  }
  return "(unknown epilogue)";
}

const char *lt_dtype_name(lt_dtype type) {
  switch (type) {
  case LT_DTYPE_F32: return "f32";
  case LT_DTYPE_BF16: return "bf16";
  case LT_DTYPE_F16: return "f16";
  case LT_DTYPE_COUNT: break;
  }
  return "(unknown type)";
}

size_t lt_dtype_size(lt_dtype type) {
  return type == LT_DTYPE_F32 ? 4 : 2;
}

double lt_dtype_unit_roundoff(lt_dtype type) {
  return type == LT_DTYPE_BF16  ? 1.0 / 256.0
         : type == LT_DTYPE_F16 ? 1.0 / 2048.0
                                : 1.0 / 16777216.0;
}

int lt_ld(int rows) {
  return (rows + 7) / 8 * 8;
}

const char *lt_activation_name(lt_activation activation) {
  return activation == LT_ACTIVATION_GELU ? "gelu" : "relu";
}

int lt_epilogue_reads_bias(lt_epilogue epilogue) {
  return epilogue == LT_EPILOGUE_BIAS ||
         epilogue == LT_EPILOGUE_RELU_AUX_BIAS ||
         epilogue == LT_EPILOGUE_GELU_AUX_BIAS;
}

int lt_epilogue_writes_bias_grad(lt_epilogue epilogue) {
  return epilogue == LT_EPILOGUE_DRELU_BGRAD ||
         epilogue == LT_EPILOGUE_DGELU_BGRAD ||
         epilogue == LT_EPILOGUE_BGRADB || epilogue == LT_EPILOGUE_BGRADA;
}

int lt_epilogue_aux_is_mask(lt_epilogue epilogue) {
  return epilogue == LT_EPILOGUE_RELU_AUX_BIAS ||
         epilogue == LT_EPILOGUE_DRELU_BGRAD || epilogue == LT_EPILOGUE_DRELU;
}

int lt_epilogue_uses_aux(lt_epilogue epilogue) {
  return lt_epilogue_aux_is_mask(epilogue) ||
         epilogue == LT_EPILOGUE_GELU_AUX_BIAS ||
         epilogue == LT_EPILOGUE_DGELU_BGRAD || epilogue == LT_EPILOGUE_DGELU;
}

int lt_epilogue_is_alternative(lt_epilogue epilogue) {
  return epilogue == LT_EPILOGUE_DRELU || epilogue == LT_EPILOGUE_DGELU ||
         epilogue == LT_EPILOGUE_BGRADA;
}

int lt_epilogue_has_split(lt_epilogue epilogue) {
  return epilogue == LT_EPILOGUE_DRELU_BGRAD ||
         epilogue == LT_EPILOGUE_DGELU_BGRAD;
}

lt_shape lt_shape_split(lt_shape shape) {
  if (shape.epilogue == LT_EPILOGUE_DRELU_BGRAD)
    shape.epilogue = LT_EPILOGUE_DRELU;
  else if (shape.epilogue == LT_EPILOGUE_DGELU_BGRAD)
    shape.epilogue = LT_EPILOGUE_DGELU;
  return shape;
}

int lt_bias_grad_length(const lt_shape *shape) {
  if (shape->epilogue == LT_EPILOGUE_BGRADB) return shape->n;
  return lt_epilogue_writes_bias_grad(shape->epilogue) ? shape->m : 0;
}

size_t lt_call_aux_bytes(const lt_shape *shape) {
  if (!lt_epilogue_uses_aux(shape->epilogue)) return 0;
  if (lt_epilogue_aux_is_mask(shape->epilogue))
    return (size_t)shape->aux_ld / 8 * (size_t)shape->n;
  return (size_t)shape->aux_ld * (size_t)shape->n * lt_dtype_size(shape->type);
}

lt_shape lt_shape_activation(lt_shape shape, lt_activation activation) {
  if (activation != LT_ACTIVATION_GELU) return shape;
  if (shape.epilogue == LT_EPILOGUE_RELU_AUX_BIAS)
    shape.epilogue = LT_EPILOGUE_GELU_AUX_BIAS;
  else if (shape.epilogue == LT_EPILOGUE_DRELU_BGRAD)
    shape.epilogue = LT_EPILOGUE_DGELU_BGRAD;
  else
    return shape;
  shape.aux_ld = lt_ld(shape.m);
  return shape;
}

int lt_aux_ld(int rows) {
  return (rows + 127) / 128 * 128;
}

size_t lt_aux_bytes(int rows, int n) {
  return (size_t)lt_aux_ld(rows) / 8 * (size_t)n;
}

lt_shape lt_shape_forward(int in, int out, int n, int hidden) {
  lt_shape s = {
      .m = out,
      .n = n,
      .k = in,
      .transa = 1,
      .transb = 0,
      .lda = lt_ld(in),
      .ldb = lt_ld(in),
      .ldd = lt_ld(out),
      .epilogue = hidden ? LT_EPILOGUE_RELU_AUX_BIAS : LT_EPILOGUE_BIAS,
      .aux_ld = hidden ? lt_aux_ld(out) : 0,
  };
  return s;
}

lt_shape lt_shape_backward_data(int in, int out, int n) {
  lt_shape s = {
      .m = in,
      .n = n,
      .k = out,
      .transa = 0,
      .transb = 0,
      .lda = lt_ld(in),
      .ldb = lt_ld(out),
      .ldd = lt_ld(in),
      .epilogue = LT_EPILOGUE_DRELU_BGRAD,
      .aux_ld = lt_aux_ld(in),
  };
  return s;
}

lt_shape lt_shape_backward_weights(int in, int out, int n, int with_bias_grad) {
  lt_shape s = {
      .m = in,
      .n = out,
      .k = n,
      .transa = 0,
      .transb = 1,
      .lda = lt_ld(in),
      .ldb = lt_ld(out),
      .ldd = lt_ld(in),
      .epilogue = with_bias_grad ? LT_EPILOGUE_BGRADB : LT_EPILOGUE_DEFAULT,
      .aux_ld = 0,
  };
  return s;
}

/* The rules cuBLASLt states (cublasLt.h, cuBLAS docs "cublasLtEpilogue_t"
 * and "cublasLtMatmulDescAttributes_t"). */
int lt_shape_check(const lt_shape *s, char *why, size_t why_size) {
  int a_rows = s->transa ? s->k : s->m, b_rows = s->transb ? s->n : s->k;
  if ((unsigned)s->type >= LT_DTYPE_COUNT)
    snprintf(why, why_size, "unknown data type %d", (int)s->type);
  else if (s->m < 1 || s->n < 1 || s->k < 1)
    snprintf(why, why_size, "expected m, n, k >= 1");
  else if ((unsigned)s->epilogue >= LT_EPILOGUE_COUNT)
    snprintf(why, why_size, "unknown epilogue %d", (int)s->epilogue);
  else if (s->lda < a_rows || s->ldb < b_rows || s->ldd < s->m)
    snprintf(why, why_size,
             "expected lda >= %d, ldb >= %d, ldd >= %d, found %d, %d, %d",
             a_rows, b_rows, s->m, s->lda, s->ldb, s->ldd);
  else if (lt_epilogue_aux_is_mask(s->epilogue) &&
           (s->aux_ld % 128 != 0 || s->aux_ld < s->m))
    snprintf(why, why_size,
             "expected aux_ld a multiple of 128 bits and >= m = %d "
             "(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD), found %d",
             s->m, s->aux_ld);
  else if (lt_epilogue_uses_aux(s->epilogue) &&
           !lt_epilogue_aux_is_mask(s->epilogue) &&
           (s->aux_ld % 8 != 0 || s->aux_ld < s->m))
    snprintf(why, why_size,
             "expected aux_ld a multiple of 8 elements and >= m = %d for the "
             "GELU input (CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD), found %d",
             s->m, s->aux_ld);
  else if (!lt_epilogue_uses_aux(s->epilogue) && s->aux_ld != 0)
    snprintf(why, why_size, "%s has no aux, expected aux_ld 0, found %d",
             lt_epilogue_name(s->epilogue), s->aux_ld);
  else if (s->epilogue == LT_EPILOGUE_BGRADB && !s->transb)
    snprintf(why, why_size,
             "BGRADB sums op(B) and needs transb = T (cuBLASLt returns "
             "NOT_SUPPORTED otherwise); use transb = 1");
  else if (s->epilogue == LT_EPILOGUE_BGRADA && s->transa)
    snprintf(why, why_size,
             "BGRADA sums op(A) and needs transa = N (BGRADB's rule "
             "mirrored: cublasLt.h states none; test_lt_facts measures "
             "it); use transa = 0");
  else
    return 0;
  return -1;
}

void lt_shape_describe(char *out, size_t size, const lt_shape *s) {
  snprintf(out, size, "%s %s m=%d n=%d k=%d transa=%c transb=%c",
           lt_epilogue_name(s->epilogue), lt_dtype_name(s->type), s->m, s->n,
           s->k, s->transa ? 'T' : 'N', s->transb ? 'T' : 'N');
}
