/* lt_matmul.h: THE cuBLASLt wrapper. Every matmul in the project, fused or
 * not, goes through lt_matmul_on().
 *
 * Conventions (cuBLASLt is column-major): D (m, n) = op(A) (m, k) op(B)
 * (k, n), alpha = 1, beta = 0, C aliased to D. A, B, D, the bias and the
 * bias gradient all have the shape's storage type (lt_shape.type: FP32,
 * BF16 or FP16; cuBLASLt makes the bias type follow D, and refuses an FP32
 * bias with 16-bit D). Products accumulate in FP32 (CUBLAS_COMPUTE_32F),
 * or TF32 for F32 shapes when the context's precision is TF32
 * (CUBLAS_COMPUTE_32F_FAST_TF32); the epilogue runs in FP32 and rounds
 * once to the storage type. The epilogue adds (shapes from lt_shape.h; the
 * whole step: docs/backprop.md, "Every call of a step"):
 *
 *   DEFAULT        D = op(A) op(B)
 *   BIAS           D = op(A) op(B) + bias[m] (broadcast over n)
 *   RELU_AUX_BIAS  Z = op(A) op(B) + bias[m]; aux bit (i, j) = !(Z < 0);
 *                  D = bit ? Z : 0. So an exact zero passes the gradient
 *                  and a NaN passes through as NaN with its bit set
 *                  (measured on the H200, CUDA 13.0; cuBLASLt's header
 *                  says only "ReLU")
 *   DRELU_BGRAD    G = op(A) op(B); D = G where the aux bit is 1, else 0;
 *                  bias_grad[i] = sum_j D[i, j]   (written, length m)
 *   BGRADB         D = op(A) op(B); bias_grad[j] = sum_p op(B)[p, j]
 *                  (written, length n); needs transb = T
 *   GELU_AUX_BIAS  Z = op(A) op(B) + bias[m]; aux = Z stored in the
 *                  storage type, (aux_ld, n) with aux_ld in elements;
 *                  D = GELU(Z) (the tanh form, lt/lt_gelu.h)
 *   DGELU_BGRAD    G = op(A) op(B); D = G * GELU'(aux);
 *                  bias_grad[i] = sum_j D[i, j]   (written, length m)
 *   DRELU, DGELU   as DRELU_BGRAD, DGELU_BGRAD without the bias gradient
 *                  (same aux and aux_ld; no bias-gradient pointer)
 *   BGRADA         D = op(A) op(B); bias_grad[i] = sum_p op(A)[i, p]
 *                  (written, length m); needs transa = N
 *
 * FP8 (lt_shape.a_fp8 / b_fp8; docs/backprop.md, "The FP8 step"): A and B
 * are E4M3 or E5M2 codes, read as decode(q) * *d_a_scale (and *d_b_scale;
 * both pointers 16-byte aligned);
 * D, bias and aux are BF16; only TN, lda and ldb multiples of 16, and no
 * bias-gradient epilogue (lt_shape_check names each rule). fast_accum sets
 * CUBLASLT_MATMUL_DESC_FAST_ACCUM. An FP8 D (lt_shape.d_fp8, E4M3) is
 * D = encode(D_temp * *d_d_scale) with *d_amax_d = max |D_temp| (the
 * epilogue's output before the scale: cublasLt.h, AMAX_D_POINTER), C a
 * BF16 buffer of its own (cuBLASLt wants C in the bias type; beta = 0, so
 * it is never read), and the bias and GELU aux types set to BF16
 * explicitly (unset, they follow D: cublasLt.h, BIAS_DATA_TYPE and
 * EPILOGUE_AUX_DATA_TYPE).
 *
 * Bias gradients are written, never accumulated, whatever beta is. The
 * aux bit-mask is column-major: bit (i, j) is bit i % 8 of byte
 * j * aux_ld / 8 + i / 8 (measured: tests/test_lt_facts.c; the header does
 * not give the bit order); aux_ld is in bits, a multiple of 128 and >= m
 * (cublasLt.h, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD).
 *
 * Plans (descriptor, layouts, the heuristic's candidates) are cached per
 * shape, epilogue, compute type and pointer alignments: the first call
 * builds one; later calls set their bias/aux pointers on it (host-side)
 * and launch. A call runs the heuristic's first candidate unless its pick
 * (lt_pick) names another: which one is the step tuner's choice
 * (train/step_tune.h), made by timing the whole training step, among the
 * candidates the context's autotune rule accepts (lt_matmul_candidates).
 * Plans are built outside CUDA graph capture: run a step once before
 * capturing it.
 */
#ifndef MNIST_EPILOGS_LT_MATMUL_H
#define MNIST_EPILOGS_LT_MATMUL_H

#include "gpu/gpu_context.h"
#include "lt/lt_shape.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Heuristic candidates asked for per plan when --autotune is on (one when
 * it is off). */
enum { LT_MAX_CANDIDATES = 32 };

/* How a call runs, chosen by the step tuner (train/step_tune.h) and kept
 * per layer (layers/linear.h). Zero: the plan's own, that is the
 * heuristic's first candidate, and under --mode auto the per-call
 * decision (lt_auto.h). Candidate c > 0 is the heuristic's candidate c - 1
 * of that plan (lt_matmul_candidates); a pick past the plan's list is
 * refused. */
typedef struct lt_pick {
  unsigned char algo;  /* the call's own plan (the fused call) */
  unsigned char plain; /* its DEFAULT twin's plan (lt_call_plain: the
                          unfused way's GEMM) */
  unsigned char split; /* its split GEMM's plan (lt_call_split) */
  unsigned char way;   /* --mode auto: an lt_auto_choice (0: undecided) */
} lt_pick;

/* Every matrix and vector has the element type shape.type. */
typedef struct lt_matmul_call {
  lt_shape shape;
  const void *d_a;    /* op(A) (m, k): stored (lda, k) if N, (lda, m) if T */
  const void *d_b;    /* op(B) (k, n): stored (ldb, n) if N, (ldb, k) if T */
  void *d_d;          /* D (m, n) col-major, ld = ldd, written */
  const void *d_bias; /* BIAS, RELU_AUX_BIAS: [m], read; else NULL */
  void *d_bias_grad;  /* DRELU_BGRAD, DGELU_BGRAD, BGRADA: [m], BGRADB: [n],
                         written; else NULL */
  void *d_aux;        /* RELU_AUX_BIAS / GELU_AUX_BIAS: written,
                         DRELU(_BGRAD) / DGELU(_BGRAD): read;
                         lt_call_aux_bytes (a bit-mask, or the GELU input);
                         else NULL */
  float *d_partials;  /* unfused or split DRELU_BGRAD / DGELU_BGRAD on the
                         main lane only, else ignored: when set, the row
                         sums' partials go here (lt_row_sums_scratch bytes,
                         the caller's own) and the bias gradient is finished
                         on the side lane (lt/lt_unfused.h); NULL: all on
                         the lane */
  /* FP8 calls (lt_shape.a_fp8, b_fp8), else NULL: one float each on the
   * device, the scale_inv that multiplies the decoded A and B
   * (CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, B_SCALE_POINTER; read by the
   * GEMM when it runs, so a kernel before it in stream order may write
   * them: the scales never cross to the host) */
  const float *d_a_scale, *d_b_scale;
  /* An FP8 D (lt_shape.d_fp8), else NULL: the scale D is written with
   * (CUBLASLT_MATMUL_DESC_D_SCALE_POINTER: the scale, not its inverse),
   * where the GEMM writes max |D_temp| (AMAX_D_POINTER: overwritten, not
   * max-ed), and C: a BF16 (m, n) buffer, ld ldd, never read. Each one
   * float (C: a matrix) on the device, 16-byte aligned. */
  const float *d_d_scale;
  float *d_amax_d;
  void *d_c;
  lt_pick pick; /* zero: the heuristic's first choice */
} lt_matmul_call;

/* The vector the epilogue reads or writes through cuBLASLt's one
 * CUBLASLT_MATMUL_DESC_BIAS_POINTER: d_bias or d_bias_grad (NULL for
 * DEFAULT). */
const void *lt_call_bias_vector(const lt_matmul_call *call);

/* The same product with the DEFAULT epilogue and no vectors: the first step
 * of the unfused twin, and the plain matmul the benchmark times. Its pick
 * is the call's pick.plain. */
lt_matmul_call lt_call_plain(const lt_matmul_call *call);

/* What a built plan holds, for reports. */
typedef struct lt_plan_info {
  lt_shape shape;
  int tf32;       /* computed in TF32 */
  int listed;     /* 1: every candidate is known: the longer list was
                     asked for (lt_plan_list: only when the step tuner or a
                     cached choice past the first needs it), or --autotune
                     off wants none */
  int offered;    /* candidates: the heuristic's single answer, then the
                     others of its longer list (1 until listed) */
  int single_at;  /* where the single answer stood in the longer list (-1:
                     not in it, or no list asked for; 0 with --autotune
                     off) */
  int checked;    /* lt_matmul_candidates ran them (else only the first is
                     known to run) */
  int accepted;   /* of those, the ones the autotune rule accepts (the
                     first included) */
  float first_us; /* the first candidate alone (lt_matmul_candidates),
                     the least of three rounds' means of three
                     launches; 0 until checked */
  /* --mode auto (lt_auto.h): the call timed fused, as its unfused twin and
   * (DRELU_BGRAD, DGELU_BGRAD) the split way, each in a CUDA graph, and the
   * choice (LT_AUTO_UNDECIDED until decided). split_us: 0 where the split
   * way does not apply, LT_SPLIT_REFUSED where cuBLASLt has no plan for its
   * DRELU / DGELU GEMM (then it is no candidate). */
  float fused_us, unfused_us, split_us;
  int auto_choice; /* an lt_auto_choice */
} lt_plan_info;

/* lt_plan_info.auto_choice. */
typedef enum lt_auto_choice {
  LT_AUTO_UNDECIDED = 0,
  LT_AUTO_FUSED = 1,
  LT_AUTO_UNFUSED = 2,
  LT_AUTO_SPLIT = 3 /* lt_split.h: DRELU / DGELU GEMM, then row sums */
} lt_auto_choice;

/* lt_plan_info.split_us of a call whose split GEMM cuBLASLt refused. */
#define LT_SPLIT_REFUSED (-1.0f)

/* Enqueues the call on a lane (GPU_LANE_MAIN or GPU_LANE_SIDE: its stream
 * and its workspace), building its plan on first use. Returns 0, or -1
 * with the reason in lt_last_error(ctx) and on stderr: a rule broken
 * (named, with the shapes), or a cuBLAS status by name. */
int lt_matmul_on(gpu_context *ctx, int lane, const lt_matmul_call *call);

/* lt_matmul_on(ctx, GPU_LANE_MAIN, call). */
int lt_matmul(gpu_context *ctx, const lt_matmul_call *call);

/* Checks the call against the epilogue rules (lt_shape_check, non-NULL
 * operands, 16-byte alignment, exactly the bias / bias-gradient / aux
 * pointers the epilogue uses) without running it. Returns 0, or -1 with
 * the broken rule named in lt_last_error(ctx) and on stderr. */
int lt_matmul_check(gpu_context *ctx, const lt_matmul_call *call);

/* Whether cuBLASLt would plan the call: lt_matmul_check, then the plan's
 * descriptor (the real epilogue, bias and aux attributes) and one
 * heuristic answer, then nothing kept: no launch, no plan cached, no
 * context stream or workspace used (only ctx->options, ctx->lt and
 * ctx->last_error). Returns 0, or -1 with the reason in lt_last_error. */
int lt_matmul_plannable(gpu_context *ctx, const lt_matmul_call *call);

/* The wrapper's last refusal ("" after a call that succeeded). */
const char *lt_last_error(const gpu_context *ctx);

/* Plans built so far, and what the i-th one holds (0 <= i < count). */
int lt_plan_count(const gpu_context *ctx);
lt_plan_info lt_plan_info_at(const gpu_context *ctx, int i);

/* The candidates of a call's plan, as the step tuner sees them. */
typedef struct lt_candidates {
  int count;                           /* offered by the heuristic */
  unsigned char ok[LT_MAX_CANDIDATES]; /* 1: accepted by the context's
                                          autotune rule (ok[0] = 1) */
  float alone_us[LT_MAX_CANDIDATES];   /* accepted ones: the call alone on
                                          the lane given, the least of
                                          three rounds' means of three
                                          launches (0 otherwise) */
} lt_candidates;

/* Builds the call's plan if needed, then (once per plan, outside graph
 * capture, waiting for the lane) runs each candidate on the call's
 * buffers and on a probe (lt_autotune.h) to see which compute the first
 * candidate's numbers, and times each accepted one alone. Overwrites the
 * call's outputs. Returns 0, or -1 with the reason in lt_last_error. */
int lt_matmul_candidates(gpu_context *ctx, int lane, const lt_matmul_call *call,
                         lt_candidates *out);

/* An algorithm as cuBLASLt describes it: its configuration attributes
 * (CUBLASLT_ALGO_CONFIG_ID, TILE_ID, SPLITK_NUM, REDUCTION_SCHEME,
 * CTA_SWIZZLING, CUSTOM_OPTION, STAGES_ID, INNER_SHAPE_ID,
 * CLUSTER_SHAPE_ID, in that order), the same in every process. */
enum { LT_ALGO_FIELDS = 9 };
typedef struct lt_algo_id {
  long long field[LT_ALGO_FIELDS];
} lt_algo_id;

/* "id I tile T stages S" of `id` (its CONFIG_ID, TILE_ID and STAGES_ID),
 * for messages. Defined in lt_algo_id.c. */
void lt_algo_id_name(char *out, size_t size, const lt_algo_id *id);

/* Candidate `index` (0-based) of the call's plan (built if needed): the
 * opaque algorithm (which the cuBLASLt docs say may be stored and restored
 * with the same library version) and its attributes, for the tuning cache
 * and the fingerprint. Returns 0, or -1 (no such candidate, or no plan). */
int lt_matmul_candidate_algo(gpu_context *ctx, const lt_matmul_call *call,
                             int index, cublasLtMatmulAlgo_t *algo,
                             lt_algo_id *id);

/* The index among the call's plan's candidates of the one stored as
 * candidate `index` (algo, id): `index` itself when that candidate has the
 * same attributes (the heuristic's order is the same for the same plan,
 * GPU and library; the bytes of its single answer were seen to differ
 * between processes), else the candidate equal to algo byte for byte, else
 * the only one with these attributes; -1 when none is. */
int lt_matmul_candidate_find(gpu_context *ctx, const lt_matmul_call *call,
                             int index, const cublasLtMatmulAlgo_t *algo,
                             const lt_algo_id *id);

/* Candidate `index` of the call's plan taken as `algo` without asking
 * this context's heuristic for its list (lt_plan_list: merely asking
 * loads the candidates' kernels): for the choices of the step tuner's
 * context apart (train/step_tune.h), whose heuristic offered algo at that
 * index for the same plan in this process. cuBLASLt stores and restores
 * an algorithm byte for byte within one library version; it is taken
 * only when cublasLtMatmulAlgoCheck accepts it for this plan within the
 * workspace; adopted once, a second adoption of that index (another
 * trainer on this context) must name the same attributes. A listed plan,
 * or candidate 0, is matched as lt_matmul_candidate_find does. Returns
 * `index` (or find's answer), or -1. */
int lt_matmul_candidate_adopt(gpu_context *ctx, const lt_matmul_call *call,
                              int index, const cublasLtMatmulAlgo_t *algo,
                              const lt_algo_id *id);

#ifdef __cplusplus
}
#endif

#endif
