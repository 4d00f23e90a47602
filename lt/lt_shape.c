/* lt_shape.c: call shapes, their builders and cuBLASLt's shape rules. */
#include "lt/lt_shape.h"

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

lt_dtype lt_precision_dtype(gpu_precision precision) {
  return precision == GPU_PRECISION_BF16 || precision == GPU_PRECISION_FP8
             ? LT_DTYPE_BF16
         : precision == GPU_PRECISION_FP16 ? LT_DTYPE_F16
                                           : LT_DTYPE_F32;
}

double lt_dtype_unit_roundoff(lt_dtype type) {
  return type == LT_DTYPE_BF16  ? 1.0 / 256.0
         : type == LT_DTYPE_F16 ? 1.0 / 2048.0
                                : 1.0 / 16777216.0;
}

int lt_ld(int rows) {
  return (rows + 7) / 8 * 8;
}

int lt_ld_fp8(int rows) {
  return (rows + 15) / 16 * 16;
}

int lt_fp8_pad_multiple(int pad_units, int pad_multiple) {
  int multiple = pad_multiple > 0 ? pad_multiple : 8;
  return pad_units && multiple % 16 == 0 ? multiple : 16;
}

const char *lt_fp8_name(lt_fp8 format) {
  return format == LT_FP8_E4M3 ? "e4m3" : format == LT_FP8_E5M2 ? "e5m2" : "";
}

int lt_shape_is_fp8(const lt_shape *shape) {
  return shape->a_fp8 != LT_FP8_NONE || shape->b_fp8 != LT_FP8_NONE;
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

/* An FP8 D's rules (cublasLt.h: CUBLASLT_MATMUL_DESC_D_SCALE_POINTER,
 * AMAX_D_POINTER; measured on the H200 with CUDA 13.0: an E4M3 D with a
 * BF16 C, RELU_AUX_BIAS, GELU_AUX_BIAS, BIAS and DEFAULT plan; an E4M3 C
 * has no algorithm): 0, or -1 with the rule in `why`. The caller has
 * checked A and B (FP8) and `type` (BF16). */
static int fp8_output_check(const lt_shape *s, char *why, size_t why_size) {
  lt_epilogue e = s->epilogue;
  if (s->d_fp8 == LT_FP8_NONE) return 0;
  if (s->d_fp8 != LT_FP8_E4M3)
    snprintf(why, why_size,
             "an FP8 D is written in e4m3 here (the next layer's input "
             "format), found d_fp8 %d",
             (int)s->d_fp8);
  else if (s->ldd % 16 != 0)
    snprintf(why, why_size,
             "an FP8 D needs ldd a multiple of 16 elements (16 bytes: "
             "lt_ld_fp8), found %d",
             s->ldd);
  else if (e != LT_EPILOGUE_DEFAULT && e != LT_EPILOGUE_BIAS &&
           e != LT_EPILOGUE_RELU_AUX_BIAS && e != LT_EPILOGUE_GELU_AUX_BIAS)
    snprintf(why, why_size,
             "an FP8 D is written by the forward epilogues only (DEFAULT, "
             "BIAS, RELU_AUX_BIAS, GELU_AUX_BIAS), found %s",
             lt_epilogue_name(e));
  else
    return 0;
  return -1;
}

/* FP8's rules (cuBLAS docs, cublasLtMatmul: "To use FP8 kernels ..."; and
 * measured on the H200 with CUDA 13.0, docs/backprop.md "The FP8 step"):
 * 0, or -1 with the rule in `why`. */
static int fp8_check(const lt_shape *s, char *why, size_t why_size) {
  int fp8 = lt_shape_is_fp8(s);
  if (!fp8) {
    if (!s->fast_accum && s->d_fp8 == LT_FP8_NONE) return 0;
    snprintf(why, why_size,
             "%s applies to FP8 calls only (FP8 A and B); found it on a %s "
             "call",
             s->fast_accum ? "fast_accum (CUBLASLT_MATMUL_DESC_FAST_ACCUM)"
                           : "an FP8 D",
             lt_dtype_name(s->type));
  } else if ((unsigned)s->a_fp8 >= LT_FP8_COUNT ||
             (unsigned)s->b_fp8 >= LT_FP8_COUNT || !s->a_fp8 || !s->b_fp8)
    snprintf(why, why_size,
             "expected A and B both in FP8 (e4m3 or e5m2), found a_fp8 %d, "
             "b_fp8 %d",
             (int)s->a_fp8, (int)s->b_fp8);
  else if (s->a_fp8 == LT_FP8_E5M2 && s->b_fp8 == LT_FP8_E5M2)
    snprintf(why, why_size,
             "cuBLASLt has no e5m2 x e5m2 GEMM (cublasLtMatmul docs, the FP8 "
             "type combinations): store one operand in e4m3");
  else if (s->type != LT_DTYPE_BF16)
    snprintf(why, why_size,
             "FP8 calls write D, bias and aux in bf16 here (one of "
             "cuBLASLt's FP8 output types), found %s",
             lt_dtype_name(s->type));
  else if (!s->transa || s->transb)
    snprintf(why, why_size,
             "cuBLASLt runs FP8 only in the TN format: A transposed, B not "
             "(cublasLtMatmul docs, FP8 requirements; NN and NT return "
             "NOT_SUPPORTED, measured on the H200), found transa=%c transb=%c",
             s->transa ? 'T' : 'N', s->transb ? 'T' : 'N');
  else if (s->lda % 16 != 0 || s->ldb % 16 != 0)
    snprintf(why, why_size,
             "FP8 operands need leading dimensions that are multiples of 16 "
             "elements (16 bytes: cuBLAS docs, tensor core usage; lt_ld_fp8), "
             "found lda %d, ldb %d",
             s->lda, s->ldb);
  else if (s->m % 16 != 0 || s->k % 16 != 0)
    snprintf(why, why_size,
             "FP8 GEMMs need m and k multiples of 16 (measured on the H200, "
             "CUDA 13.0: cuBLASLt's heuristic returns NOT_SUPPORTED for m = "
             "100 or 129, k = 10 or 129; pad the widths to 16), found m=%d, "
             "k=%d",
             s->m, s->k);
  else if (lt_epilogue_writes_bias_grad(s->epilogue))
    snprintf(why, why_size,
             "%s has no FP8 kernel: cuBLASLt returns NOT_SUPPORTED for every "
             "bias-gradient epilogue with FP8 inputs (measured on the H200, "
             "CUDA 13.0); run DEFAULT and sum the bias gradient separately",
             lt_epilogue_name(s->epilogue));
  else
    return fp8_output_check(s, why, why_size);
  return -1;
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
    return fp8_check(s, why, why_size);
  return -1;
}

void lt_shape_describe(char *out, size_t size, const lt_shape *s) {
  char type[32];
  if (lt_shape_is_fp8(s))
    snprintf(type, sizeof type, "%s*%s->%s", lt_fp8_name(s->a_fp8),
             lt_fp8_name(s->b_fp8),
             s->d_fp8 ? lt_fp8_name(s->d_fp8) : lt_dtype_name(s->type));
  else
    snprintf(type, sizeof type, "%s", lt_dtype_name(s->type));
  snprintf(out, size, "%s %s m=%d n=%d k=%d transa=%c transb=%c%s",
           lt_epilogue_name(s->epilogue), type, s->m, s->n, s->k,
           s->transa ? 'T' : 'N', s->transb ? 'T' : 'N',
           s->fast_accum ? " fast-accum" : "");
}
