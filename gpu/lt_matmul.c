/* lt_matmul.c: the one cuBLASLt wrapper: checks the epilogue rules, builds
 * and caches plans, autotunes them, and launches. */
#include "lt_matmul.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_check.h"
#include "kernels.h"

enum {
  LT_MAX_CANDIDATES = 32, /* heuristic results asked for per plan */
  LT_TIMED_RUNS = 5,      /* timed launches per candidate; the median counts */
};
/* A later candidate must beat the kept one by this factor to replace it,
 * so near-ties go to the heuristic's order. */
#define LT_TIE_MARGIN 1.03f
/* GPU_AUTOTUNE_FAST: the largest max|out - out_first| / max|out_first| a
 * candidate may show. FP32 sums of k <= 10^4 products in another order
 * differ by ~sqrt(k) * 6e-8 ~ 1e-5 relative; TF32 inputs carry 10 mantissa
 * bits (~5e-4 each). Wrong results are O(1). GPU_AUTOTUNE_EXACT wants 0. */
#define LT_MATCH_FP32 1e-4f
#define LT_MATCH_TF32 1e-2f

typedef struct lt_plan {
  lt_matmul_call call; /* the call it was built (and tuned) with; the key is
                          its shape, epilogue and pointer alignments */
  const void *bias_set, *aux_set; /* pointers now set on the descriptor */
  cublasComputeType_t compute;
  cublasLtMatmulDesc_t op;
  cublasLtMatrixLayout_t a, b, d;
  cublasLtMatmulAlgo_t algo;
  lt_plan_info info;
} lt_plan;

struct lt_plan_cache {
  lt_plan *plans;
  int count, capacity;
};

static cublasLtEpilogue_t to_cublas(lt_epilogue epilogue) {
  switch (epilogue) {
  case LT_EPILOGUE_BIAS: return CUBLASLT_EPILOGUE_BIAS;
  case LT_EPILOGUE_RELU_AUX_BIAS: return CUBLASLT_EPILOGUE_RELU_AUX_BIAS;
  case LT_EPILOGUE_DRELU_BGRAD: return CUBLASLT_EPILOGUE_DRELU_BGRAD;
  case LT_EPILOGUE_BGRADB: return CUBLASLT_EPILOGUE_BGRADB;
  default: return CUBLASLT_EPILOGUE_DEFAULT;
  }
}

static int refuse(gpu_context *ctx, const lt_matmul_call *c,
                  const char *format, ...) __attribute__((format(printf, 3, 4)));

static int refuse(gpu_context *ctx, const lt_matmul_call *c,
                  const char *format, ...) {
  char reason[300];
  va_list args;
  va_start(args, format);
  vsnprintf(reason, sizeof reason, format, args);
  va_end(args);
  snprintf(ctx->last_error, sizeof ctx->last_error,
           "lt_matmul %s m=%d n=%d k=%d transa=%c transb=%c: %s",
           lt_epilogue_name(c->epilogue), c->m, c->n, c->k,
           c->transa ? 'T' : 'N', c->transb ? 'T' : 'N', reason);
  fprintf(stderr, "%s\n", ctx->last_error);
  return -1;
}

static int misaligned(const void *p) { return ((uintptr_t)p & 15u) != 0; }

/* The rules cuBLASLt states (cublasLt.h, cuBLAS docs "cublasLtEpilogue_t"),
 * checked before any call so a violation is named, not a status code. */
int lt_matmul_check(gpu_context *ctx, const lt_matmul_call *c) {
  if (c->m < 1 || c->n < 1 || c->k < 1)
    return refuse(ctx, c, "expected m, n, k >= 1");
  if ((unsigned)c->epilogue > LT_EPILOGUE_BGRADB)
    return refuse(ctx, c, "unknown epilogue %d", (int)c->epilogue);
  if (!c->d_a || !c->d_b || !c->d_d)
    return refuse(ctx, c, "expected non-NULL A, B and D");
  int a_rows = c->transa ? c->k : c->m, b_rows = c->transb ? c->n : c->k;
  if (c->lda < a_rows || c->ldb < b_rows || c->ldd < c->m)
    return refuse(ctx, c,
                  "expected lda >= %d, ldb >= %d, ldd >= %d, found %d, %d, %d",
                  a_rows, b_rows, c->m, c->lda, c->ldb, c->ldd);
  if (misaligned(c->d_a) || misaligned(c->d_b) || misaligned(c->d_d) ||
      misaligned(c->d_bias) || misaligned(c->d_aux))
    return refuse(ctx, c, "expected every pointer 16-byte aligned");
  int wants_bias = c->epilogue != LT_EPILOGUE_DEFAULT;
  int wants_aux = c->epilogue == LT_EPILOGUE_RELU_AUX_BIAS ||
                  c->epilogue == LT_EPILOGUE_DRELU_BGRAD;
  if (wants_bias && !c->d_bias)
    return refuse(ctx, c, "expected a bias (or bias-gradient) pointer");
  if (!wants_bias && c->d_bias)
    return refuse(ctx, c, "DEFAULT takes no bias pointer");
  if (wants_aux && !c->d_aux)
    return refuse(ctx, c, "expected an aux (ReLU bit-mask) pointer");
  if (wants_aux && (c->aux_ld % 128 != 0 || c->aux_ld < c->m))
    return refuse(ctx, c,
                  "expected aux_ld a multiple of 128 bits and >= m = %d "
                  "(CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD), found %d",
                  c->m, c->aux_ld);
  if (c->epilogue == LT_EPILOGUE_BGRADB && !c->transb)
    return refuse(ctx, c,
                  "BGRADB sums op(B) and needs transb = T (cuBLASLt returns "
                  "NOT_SUPPORTED otherwise); use transb = 1");
  return 0;
}

int lt_plan_cache_create(lt_plan_cache **out) {
  *out = calloc(1, sizeof **out);
  if (!*out) {
    fprintf(stderr, "lt_matmul: out of host memory creating the plan cache\n");
    return -1;
  }
  return 0;
}

static void plan_release(lt_plan *plan) {
  if (plan->d) cublasLtMatrixLayoutDestroy(plan->d);
  if (plan->b) cublasLtMatrixLayoutDestroy(plan->b);
  if (plan->a) cublasLtMatrixLayoutDestroy(plan->a);
  if (plan->op) cublasLtMatmulDescDestroy(plan->op);
}

void lt_plan_cache_destroy(lt_plan_cache *cache) {
  if (!cache) return;
  for (int i = 0; i < cache->count; i++) plan_release(&cache->plans[i]);
  free(cache->plans);
  free(cache);
}

int lt_plan_cache_count(const lt_plan_cache *cache) { return cache->count; }

lt_plan_info lt_plan_cache_info(const lt_plan_cache *cache, int i) {
  return cache->plans[i].info;
}

/* Largest power of two up to 256 that divides the address (0 for NULL):
 * the heuristic picks kernels by operand alignment, so a plan serves only
 * calls whose pointers are aligned at least as well as its own. */
static unsigned alignment(const void *p) {
  uintptr_t address = (uintptr_t)p;
  if (!address) return 0;
  unsigned a = 256;
  while (address % a) a /= 2;
  return a;
}

/* Calls that may share a plan: same shape, transposes, leading dimensions,
 * epilogue, aux_ld, and operand alignments. Pointers may differ: A, B and
 * D are arguments of every launch, bias and aux are set per call. */
static int same_plan(const lt_matmul_call *x, const lt_matmul_call *y) {
  return x->m == y->m && x->n == y->n && x->k == y->k &&
         x->transa == y->transa && x->transb == y->transb &&
         x->lda == y->lda && x->ldb == y->ldb && x->ldd == y->ldd &&
         x->epilogue == y->epilogue && x->aux_ld == y->aux_ld &&
         alignment(x->d_a) == alignment(y->d_a) &&
         alignment(x->d_b) == alignment(y->d_b) &&
         alignment(x->d_d) == alignment(y->d_d) &&
         alignment(x->d_bias) == alignment(y->d_bias) &&
         alignment(x->d_aux) == alignment(y->d_aux);
}

static int set_attr(cublasLtMatmulDesc_t op, cublasLtMatmulDescAttributes_t a,
                    const void *value, size_t size) {
  CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(op, a, value, size));
  return 0;
}

/* Descriptor and layouts. The bias and aux pointers are set before the
 * heuristic is asked: it reads their alignment. */
static int plan_describe(lt_plan *p) {
  const lt_matmul_call *c = &p->call;
  CUBLAS_CHECK(cublasLtMatmulDescCreate(&p->op, p->compute, CUDA_R_32F));
  cublasOperation_t ta = c->transa ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t tb = c->transb ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasLtEpilogue_t epilogue = to_cublas(c->epilogue);
  if (set_attr(p->op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta) ||
      set_attr(p->op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb) ||
      set_attr(p->op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue,
               sizeof epilogue))
    return -1;
  if (c->d_bias && set_attr(p->op, CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                            &c->d_bias, sizeof c->d_bias))
    return -1;
  if (c->d_aux) {
    int64_t aux_ld = c->aux_ld;
    if (set_attr(p->op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &c->d_aux,
                 sizeof c->d_aux) ||
        set_attr(p->op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &aux_ld,
                 sizeof aux_ld))
      return -1;
  }
  CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&p->a, CUDA_R_32F,
                                          c->transa ? c->k : c->m,
                                          c->transa ? c->m : c->k, c->lda));
  CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&p->b, CUDA_R_32F,
                                          c->transb ? c->n : c->k,
                                          c->transb ? c->k : c->n, c->ldb));
  CUBLAS_CHECK(
      cublasLtMatrixLayoutCreate(&p->d, CUDA_R_32F, c->m, c->n, c->ldd));
  return 0;
}

static cublasStatus_t plan_try(gpu_context *ctx, int lane, const lt_plan *p,
                               const lt_matmul_call *c,
                               const cublasLtMatmulAlgo_t *algo) {
  const float alpha = 1.0f, beta = 0.0f;
  return cublasLtMatmul(ctx->lt, p->op, &alpha, c->d_a, p->a, c->d_b, p->b,
                        &beta, c->d_d, p->d, c->d_d, p->d, algo,
                        gpu_lane_workspace(ctx, lane), GPU_WORKSPACE_BYTES,
                        gpu_lane_stream(ctx, lane));
}

static int plan_launch(gpu_context *ctx, int lane, const lt_plan *p,
                       const lt_matmul_call *c,
                       const cublasLtMatmulAlgo_t *algo) {
  CUBLAS_CHECK(plan_try(ctx, lane, p, c, algo));
  return 0;
}

static int compare_floats(const void *x, const void *y) {
  float a = *(const float *)x, b = *(const float *)y;
  return (a > b) - (a < b);
}

/* Median of LT_TIMED_RUNS launches of one candidate, in microseconds. */
static int time_candidate(gpu_context *ctx, int lane, const lt_plan *p,
                          const cublasLtMatmulAlgo_t *algo, cudaEvent_t *ev,
                          float *us) {
  cudaStream_t stream = gpu_lane_stream(ctx, lane);
  float times[LT_TIMED_RUNS];
  for (int r = 0; r < LT_TIMED_RUNS; r++) {
    CUDA_CHECK(cudaEventRecord(ev[0], stream));
    if (plan_launch(ctx, lane, p, &p->call, algo) != 0) return -1;
    CUDA_CHECK(cudaEventRecord(ev[1], stream));
    CUDA_CHECK(cudaEventSynchronize(ev[1]));
    CUDA_CHECK(cudaEventElapsedTime(&times[r], ev[0], ev[1]));
  }
  qsort(times, LT_TIMED_RUNS, sizeof times[0], compare_floats);
  *us = times[LT_TIMED_RUNS / 2] * 1000.0f;
  return 0;
}

/* The outputs a candidate writes that numerics can differ in: D, and the
 * bias gradient of DRELU_BGRAD (length m) and BGRADB (length n). */
typedef struct tune_scratch {
  float *d_ref;       /* (m, n) tight copy of D */
  float *d_ref_bias;  /* copy of the bias gradient, or NULL */
  float *d_diff;      /* [2] */
  int bias_len;
} tune_scratch;

static int scratch_create(tune_scratch *s, const lt_matmul_call *c) {
  memset(s, 0, sizeof *s);
  s->bias_len = c->epilogue == LT_EPILOGUE_DRELU_BGRAD ? c->m
                : c->epilogue == LT_EPILOGUE_BGRADB     ? c->n
                                                         : 0;
  CUDA_CHECK(cudaMalloc((void **)&s->d_ref, (size_t)c->m * c->n * sizeof(float)));
  CUDA_CHECK(cudaMalloc((void **)&s->d_diff, 2 * sizeof(float)));
  if (s->bias_len)
    CUDA_CHECK(cudaMalloc((void **)&s->d_ref_bias, (size_t)s->bias_len * sizeof(float)));
  return 0;
}

static void scratch_destroy(tune_scratch *s) {
  cudaFree(s->d_ref_bias);
  cudaFree(s->d_diff);
  cudaFree(s->d_ref);
}

static int scratch_keep(tune_scratch *s, const lt_matmul_call *c,
                        cudaStream_t stream) {
  if (gpu_copy_matrix(s->d_ref, c->m, c->d_d, c->ldd, c->m, c->n, stream) != 0)
    return -1;
  if (s->bias_len &&
      gpu_copy_matrix(s->d_ref_bias, s->bias_len, c->d_bias, s->bias_len,
                      s->bias_len, 1, stream) != 0)
    return -1;
  return 0;
}

/* *same = 1 when the candidate's outputs match the kept ones: bitwise
 * (tolerance 0) or within tolerance * max|reference|. NaN never matches. */
static int scratch_matches(tune_scratch *s, const lt_matmul_call *c,
                           cudaStream_t stream, float tolerance, int *same) {
  float h[2];
  *same = 0;
  if (gpu_compare_matrices(s->d_diff, c->d_d, c->ldd, s->d_ref, c->m, c->m,
                           c->n, stream) != 0)
    return -1;
  CUDA_CHECK(cudaMemcpyAsync(h, s->d_diff, sizeof h, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  if (!(h[0] <= tolerance * h[1])) return 0;
  if (s->bias_len) {
    if (gpu_compare_matrices(s->d_diff, c->d_bias, s->bias_len, s->d_ref_bias,
                             s->bias_len, s->bias_len, 1, stream) != 0)
      return -1;
    CUDA_CHECK(cudaMemcpyAsync(h, s->d_diff, sizeof h, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    if (!(h[0] <= tolerance * h[1])) return 0;
  }
  *same = 1;
  return 0;
}

/* Runs every candidate the heuristic offered on the plan's first call;
 * keeps the fastest whose outputs match the first working candidate's
 * (bitwise for EXACT). A candidate that fails to launch is skipped. */
static int plan_autotune(gpu_context *ctx, int lane, lt_plan *p,
                         const cublasLtMatmulHeuristicResult_t *results,
                         int count, tune_scratch *scratch) {
  const lt_matmul_call *c = &p->call;
  cudaStream_t stream = gpu_lane_stream(ctx, lane);
  float tolerance = ctx->options.autotune == GPU_AUTOTUNE_EXACT ? 0.0f
                    : ctx->options.tf32                         ? LT_MATCH_TF32
                                                                : LT_MATCH_FP32;
  cudaEvent_t ev[2] = {NULL, NULL};
  CUDA_CHECK(cudaEventCreate(&ev[0]));
  if (cudaEventCreate(&ev[1]) != cudaSuccess) {
    cudaEventDestroy(ev[0]);
    return -1;
  }
  int best = -1, ran = 0, status = 0;
  float best_us = 0.0f;
  for (int i = 0; i < count && status == 0; i++) {
    if (plan_try(ctx, lane, p, c, &results[i].algo) != CUBLAS_STATUS_SUCCESS)
      continue;
    if (best < 0) {
      status = scratch_keep(scratch, c, stream);
    } else {
      int same = 0;
      status = scratch_matches(scratch, c, stream, tolerance, &same);
      if (status == 0 && !same) continue;
    }
    float us = 0.0f;
    if (status == 0) status = time_candidate(ctx, lane, p, &results[i].algo, ev, &us);
    if (status != 0) break;
    ran++;
    if (best < 0) p->info.first_us = us;
    if (best < 0 || us * LT_TIE_MARGIN < best_us) {
      best = i;
      best_us = us;
    }
  }
  cudaEventDestroy(ev[1]);
  cudaEventDestroy(ev[0]);
  if (status != 0) return -1;
  if (best < 0) return refuse(ctx, c, "no heuristic candidate ran");
  p->algo = results[best].algo;
  p->info.candidates = ran;
  p->info.chosen = best;
  p->info.chosen_us = best_us;
  return 0;
}

static int plan_choose(gpu_context *ctx, int lane, lt_plan *p) {
  const lt_matmul_call *c = &p->call;
  cublasLtMatmulPreference_t pref = NULL;
  CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
  size_t workspace = GPU_WORKSPACE_BYTES;
  cublasLtMatmulHeuristicResult_t results[LT_MAX_CANDIDATES];
  int count = 0;
  cublasStatus_t status = cublasLtMatmulPreferenceSetAttribute(
      pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
      sizeof workspace);
  /* The heuristic assumes 256-byte aligned A, B, C, D unless told; tell
   * it what this plan's operands have (cuBLASLt docs,
   * CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_*_BYTES). */
  uint32_t align[4] = {alignment(c->d_a), alignment(c->d_b), alignment(c->d_d),
                       alignment(c->d_d)};
  cublasLtMatmulPreferenceAttributes_t which[4] = {
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES};
  for (int i = 0; i < 4 && status == CUBLAS_STATUS_SUCCESS; i++)
    status = cublasLtMatmulPreferenceSetAttribute(pref, which[i], &align[i],
                                                  sizeof align[i]);
  int tune = ctx->options.autotune != GPU_AUTOTUNE_OFF;
  if (status == CUBLAS_STATUS_SUCCESS)
    status = cublasLtMatmulAlgoGetHeuristic(ctx->lt, p->op, p->a, p->b, p->d,
                                            p->d, pref,
                                            tune ? LT_MAX_CANDIDATES : 1,
                                            results, &count);
  cublasLtMatmulPreferenceDestroy(pref);
  if (status != CUBLAS_STATUS_SUCCESS || count == 0)
    return refuse(ctx, c, "the heuristic found no algorithm: %s (%s)",
                  cublasLtGetStatusName(status),
                  count == 0 && status == CUBLAS_STATUS_SUCCESS
                      ? "zero candidates"
                      : cublasLtGetStatusString(status));
  p->info.candidates = count;
  if (!tune || count == 1) {
    p->algo = results[0].algo;
    return 0;
  }
  enum cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  CUDA_CHECK(cudaStreamIsCapturing(gpu_lane_stream(ctx, lane), &capture));
  if (capture != cudaStreamCaptureStatusNone)
    return refuse(ctx, c, "a plan cannot be autotuned during graph capture; "
                  "run the step once before capturing it");
  tune_scratch scratch;
  int result = scratch_create(&scratch, c);
  if (result != 0) refuse(ctx, c, "out of GPU memory for the autotune scratch");
  else result = plan_autotune(ctx, lane, p, results, count, &scratch);
  scratch_destroy(&scratch);
  return result;
}

static lt_plan *plan_find_or_build(gpu_context *ctx, int lane,
                                   const lt_matmul_call *call) {
  lt_plan_cache *cache = ctx->plans;
  cublasComputeType_t compute = ctx->options.tf32
                                    ? CUBLAS_COMPUTE_32F_FAST_TF32
                                    : CUBLAS_COMPUTE_32F;
  for (int i = 0; i < cache->count; i++)
    if (cache->plans[i].compute == compute &&
        same_plan(&cache->plans[i].call, call))
      return &cache->plans[i];
  if (cache->count == cache->capacity) {
    int capacity = cache->capacity ? 2 * cache->capacity : 16;
    lt_plan *bigger = realloc(cache->plans, (size_t)capacity * sizeof *bigger);
    if (!bigger) {
      refuse(ctx, call, "out of host memory for the plan cache");
      return NULL;
    }
    cache->plans = bigger;
    cache->capacity = capacity;
  }
  lt_plan *p = &cache->plans[cache->count];
  memset(p, 0, sizeof *p);
  p->call = *call;
  p->bias_set = call->d_bias;
  p->aux_set = call->d_aux;
  p->compute = compute;
  p->info.m = call->m;
  p->info.n = call->n;
  p->info.k = call->k;
  p->info.epilogue = call->epilogue;
  if (plan_describe(p) != 0 || plan_choose(ctx, lane, p) != 0) {
    if (!ctx->last_error[0])
      refuse(ctx, call, "building the plan failed (see the line above)");
    plan_release(p);
    return NULL;
  }
  cache->count++;
  return p;
}

int lt_matmul(gpu_context *ctx, const lt_matmul_call *call) {
  return lt_matmul_on(ctx, GPU_LANE_MAIN, call);
}

int lt_matmul_on(gpu_context *ctx, int lane, const lt_matmul_call *call) {
  ctx->last_error[0] = '\0';
  if (lt_matmul_check(ctx, call) != 0) return -1;
  lt_plan *p = plan_find_or_build(ctx, lane, call);
  if (!p) return -1;
  /* Host-side descriptor writes: cublasLtMatmul reads them when it
   * enqueues, so earlier launches keep the pointers they were given. */
  if (call->d_bias != p->bias_set) {
    if (set_attr(p->op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &call->d_bias,
                 sizeof call->d_bias) != 0)
      return refuse(ctx, call, "setting the bias pointer failed");
    p->bias_set = call->d_bias;
  }
  if (call->d_aux != p->aux_set) {
    if (set_attr(p->op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER,
                 &call->d_aux, sizeof call->d_aux) != 0)
      return refuse(ctx, call, "setting the aux pointer failed");
    p->aux_set = call->d_aux;
  }
  if (plan_launch(ctx, lane, p, call, &p->algo) != 0)
    return refuse(ctx, call, "cublasLtMatmul failed (see the line above)");
  return 0;
}
