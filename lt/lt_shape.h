/* lt_shape.h: the shape of one matmul call, shared by the cuBLASLt wrapper
 * (lt_matmul.h) and the plain-C oracle (layers/oracle.h), and the three
 * builders that make every call of a training step from layer sizes, and
 * the storage type of each precision. Plain C, no CUDA headers, so
 * CPU-only code includes it.
 *
 * cuBLASLt is column-major: D (m, n) = op(A) (m, k) op(B) (k, n), then the
 * epilogue. Weights are stored like PyTorch, W[out][in] row-major, which is
 * the column-major Wt (in, out) with ld = in; activations are (features,
 * batch) column-major. Every leading dimension is the row count rounded
 * up to a multiple of 8 elements (lt_ld): 16 bytes in BF16/FP16, the
 * alignment Hopper's fused-epilogue GEMM kernels need (measured: with
 * ld = 100 cuBLASLt falls back to align-2 kernels); the padding rows are
 * never read by a call with the logical m, n, k, and stay zero.
 */
#ifndef MNIST_EPILOGS_LT_SHAPE_H
#define MNIST_EPILOGS_LT_SHAPE_H

#include <stddef.h>

#include "gpu/gpu_options.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum lt_epilogue {
  LT_EPILOGUE_DEFAULT,       /* D = op(A) op(B) */
  LT_EPILOGUE_BIAS,          /* D = op(A) op(B) + bias[m] */
  LT_EPILOGUE_RELU_AUX_BIAS, /* Z = op(A) op(B) + bias[m]; D = ReLU(Z);
                                aux = ReLU bit-mask of Z */
  LT_EPILOGUE_DRELU_BGRAD,   /* D = op(A) op(B) masked by aux;
                                bias_grad[m] = row sums of D */
  LT_EPILOGUE_BGRADB,        /* D = op(A) op(B); bias_grad[n] = column sums
                                of op(B) */
  LT_EPILOGUE_GELU_AUX_BIAS, /* Z = op(A) op(B) + bias[m]; D = GELU(Z);
                                aux = Z (the GELU input, in the storage
                                type) */
  LT_EPILOGUE_DGELU_BGRAD,   /* D = op(A) op(B) * GELU'(aux);
                                bias_grad[m] = row sums of D */
  /* The alternatives (docs/backprop.md section 11): no training step calls
   * them fused; --mode auto's split way runs DRELU / DGELU, and
   * mnist_bench --alternatives times all three. */
  LT_EPILOGUE_DRELU,  /* D = op(A) op(B) masked by aux (no bias gradient) */
  LT_EPILOGUE_DGELU,  /* D = op(A) op(B) * GELU'(aux) (no bias gradient) */
  LT_EPILOGUE_BGRADA, /* D = op(A) op(B); bias_grad[m] = row sums of op(A)
                         over k; needs transa = N */
  LT_EPILOGUE_COUNT
} lt_epilogue;

/* The hidden layers' activation; each has a forward epilogue that saves
 * what its backward epilogue reads (ReLU: a bit-mask; GELU: the
 * pre-activation). */
typedef enum lt_activation {
  LT_ACTIVATION_RELU,
  LT_ACTIVATION_GELU,
  LT_ACTIVATION_COUNT
} lt_activation;

/* "relu", "gelu" (the --activation values). */
const char *lt_activation_name(lt_activation activation);

/* The storage type of a call's matrices A, B, D and of its bias and bias
 * gradient vectors (cuBLASLt: the bias type follows D; FP32 bias with
 * 16-bit D is INVALID_VALUE, measured on the H200 with CUDA 13.0). */
typedef enum lt_dtype {
  LT_DTYPE_F32, /* float */
  LT_DTYPE_BF16,
  LT_DTYPE_F16,
  LT_DTYPE_COUNT
} lt_dtype;

const char *lt_dtype_name(lt_dtype type);
/* Bytes per element: 4 or 2. */
size_t lt_dtype_size(lt_dtype type);

/* The storage type of the precision's matrices (FP8: BF16, the type of
 * its outputs, activations and gradients; the FP8 operands are copies). */
lt_dtype lt_precision_dtype(gpu_precision precision);
/* Unit roundoff of the storage type: 2^-24, 2^-8 (BF16: 8 significant
 * bits), 2^-11 (FP16: 11 bits). */
double lt_dtype_unit_roundoff(lt_dtype type);

/* The OCP FP8 formats (layers/fp8.h holds their casts; docs/backprop.md,
 * "The FP8 step"): an FP8 A or B is stored in one of them and read as
 * decode(q) * its scale_inv (lt_matmul_call.d_a_scale, d_b_scale); an FP8
 * D is written as encode(D_temp * scale_D). The bias, the aux and C keep
 * `type`, which must then be BF16. LT_FP8_NONE (the zero value): the
 * matrix has `type`. The one format enum of the project. */
typedef enum lt_fp8 {
  LT_FP8_NONE = 0,
  LT_FP8_E4M3, /* CUDA_R_8F_E4M3: max 448, 3 mantissa bits */
  LT_FP8_E5M2, /* CUDA_R_8F_E5M2: max 57344, 2 mantissa bits */
  LT_FP8_COUNT
} lt_fp8;

/* "e4m3", "e5m2" ("" for LT_FP8_NONE). */
const char *lt_fp8_name(lt_fp8 format);

typedef struct lt_shape {
  lt_dtype type; /* of D, bias and bias gradient, and of A and B unless
                    a_fp8 / b_fp8 say FP8 (F32 when zeroed) */
  int m, n, k;
  int transa, transb; /* 0: N, 1: T */
  int lda, ldb, ldd;  /* leading dimensions, in elements */
  lt_epilogue epilogue;
  int aux_ld;          /* RELU_AUX_BIAS, DRELU_BGRAD: bits; GELU_AUX_BIAS,
                          DGELU_BGRAD: elements; else 0 */
  lt_fp8 a_fp8, b_fp8; /* FP8 storage of A and B: both or neither */
  lt_fp8 d_fp8;        /* FP8 storage of D (E4M3, with FP8 A and B):
                          D = encode(D_temp * scale_D), C and the bias and
                          aux stay in `type`; LT_FP8_NONE: D in `type` */
  int fast_accum;      /* FP8 only: CUBLASLT_MATMUL_DESC_FAST_ACCUM = 1
                          (the tensor cores' own accumulator, promoted to
                          FP32 less often: faster, less exact) */
} lt_shape;

/* 1 when A and B are FP8. */
int lt_shape_is_fp8(const lt_shape *shape);

/* Leading dimension (elements) of an FP8 matrix with `rows` rows: rows
 * rounded up to a multiple of 16 (16 bytes: cuBLASLt's FP8 kernels need
 * 16-byte aligned columns; lt_ld's 8 is only 8 bytes in FP8). */
int lt_ld_fp8(int rows);

/* The padding multiple of a network whose GEMMs run in FP8 (m and k
 * multiples of 16, lt_shape_check): `pad_multiple` when the network is
 * padded (pad_units) to a multiple of 16 already (0 means 8, as in
 * mlp_options), else 16. */
int lt_fp8_pad_multiple(int pad_units, int pad_multiple);

const char *lt_epilogue_name(lt_epilogue epilogue);

/* 1 when the epilogue reads a bias[m], writes a bias gradient (length
 * m for DRELU_BGRAD, DGELU_BGRAD and BGRADA, n for BGRADB:
 * lt_bias_grad_length), or reads or writes an aux (mask or GELU input). */
int lt_epilogue_reads_bias(lt_epilogue epilogue);
int lt_epilogue_writes_bias_grad(lt_epilogue epilogue);
int lt_epilogue_uses_aux(lt_epilogue epilogue);
/* 1 for the ReLU epilogues, whose aux is a bit-mask; the GELU ones keep
 * the pre-activation itself, a (aux_ld, n) matrix in the storage type. */
int lt_epilogue_aux_is_mask(lt_epilogue epilogue);
int lt_bias_grad_length(const lt_shape *shape);
/* 1 for DRELU, DGELU and BGRADA: epilogues no training step calls fused
 * (so the start-up probe does not ask for them). */
int lt_epilogue_is_alternative(lt_epilogue epilogue);

/* The split way's GEMM of a DRELU_BGRAD / DGELU_BGRAD call: the same shape
 * and aux with DRELU / DGELU, whose D the caller then sums by rows for the
 * bias gradient (lt/lt_split.h). Other shapes are returned as they are;
 * lt_epilogue_has_split says which have one. */
lt_shape lt_shape_split(lt_shape shape);
int lt_epilogue_has_split(lt_epilogue epilogue);

/* Leading dimension (elements) of a matrix with `rows` rows: rows rounded
 * up to a multiple of 8. */
int lt_ld(int rows);

/* aux_ld (bits) for a mask of `rows` features: rows rounded up to 128, the
 * rule of CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD. */
int lt_aux_ld(int rows);
/* Bytes of such a mask for n columns: aux_ld / 8 * n. */
size_t lt_aux_bytes(int rows, int n);

/* Bytes of the aux buffer a call reads or writes: the mask's, or aux_ld *
 * n elements of the storage type for GELU; 0 without an aux. */
size_t lt_call_aux_bytes(const lt_shape *shape);

/* The same call with the hidden layers' `activation`: RELU_AUX_BIAS and
 * DRELU_BGRAD become GELU_AUX_BIAS and DGELU_BGRAD with aux_ld = lt_ld(m)
 * (CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD for GELU: elements, divisible by 8,
 * >= the rows of D); other shapes and ReLU are returned as they are. */
lt_shape lt_shape_activation(lt_shape shape, lt_activation activation);

/* The builders below return F32 shapes (set .type for 16-bit) whose leading
 * dimensions are lt_ld of the stored row counts.
 *
 * Forward of a layer with `in` inputs, `out` outputs, batch n:
 * Y (out, n) = op(Wt) (out, in) X (in, n) + b: m = out, n = n, k = in;
 * A = Wt stored (in, out), transposed; B = X (in, n). Hidden layers
 * (hidden = 1) use RELU_AUX_BIAS (or GELU_AUX_BIAS) with aux_ld =
 * lt_aux_ld(out); the output layer BIAS. */
lt_shape lt_shape_forward(int in, int out, int n, int hidden);

/* Backward data of a layer over a hidden layer below it:
 * dZ_below (in, n) = Wt (in, out) dZ (out, n): m = in, n = n, k = out;
 * both untransposed; DRELU_BGRAD masks with the bits the layer below saved
 * (aux_ld = lt_aux_ld(in)) and writes that layer's bias gradient [in]. */
lt_shape lt_shape_backward_data(int in, int out, int n);

/* Backward weights: dWt (in, out) = X (in, n) dZ^T (n, out): m = in,
 * n = out, k = n; B = dZ stored (out, n), transposed. The output layer
 * (with_bias_grad = 1) uses BGRADB, which sums op(B) over k into db[out]
 * and requires transb = T; hidden layers DEFAULT (their db comes from the
 * DRELU_BGRAD of the layer above). */
lt_shape lt_shape_backward_weights(int in, int out, int n, int with_bias_grad);

/* Checks the shape against cuBLASLt's rules (a known type; m, n, k >= 1;
 * leading dimensions; aux_ld, only where the epilogue has an aux: for ReLU
 * a multiple of 128 bits and >= m, for GELU a multiple of 8 elements and
 * >= m; BGRADB's transb = T; BGRADA's transa = N; FP8: A and B both FP8,
 * not both E5M2, TN, lda and ldb multiples of 16, m and k multiples of 16,
 * `type` BF16, no bias-gradient epilogue; an FP8 D: E4M3, FP8 A and B,
 * ldd a multiple of 16, only DEFAULT, BIAS, RELU_AUX_BIAS or
 * GELU_AUX_BIAS; fast_accum only with FP8). Returns 0, or -1 with the
 * broken rule in `why`. */
int lt_shape_check(const lt_shape *shape, char *why, size_t why_size);

/* "RELU_AUX_BIAS bf16 m=100 n=256 k=784 transa=T transb=N" */
void lt_shape_describe(char *out, size_t size, const lt_shape *shape);

#ifdef __cplusplus
}
#endif

#endif
