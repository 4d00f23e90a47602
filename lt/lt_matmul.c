/* lt_matmul.c: the one cuBLASLt wrapper: checks the call (lt_check.c),
 * builds plans (their key, descriptor, layouts, the heuristic's
 * candidates; which candidates compute the same numbers: lt_autotune.c),
 * caches them (lt_plan_cache.c) and launches the call's pick
 * (lt_plan_launch.c); refusals are recorded by lt_refuse.c; the
 * heuristic's candidates: lt_heuristic.c; their stable names for the
 * tuning cache: lt_candidates.c. */
#include "lt/lt_matmul.h"

#include <stdint.h>
#include <string.h>

#include "gpu/gpu_check.h"
#include "lt/lt_plan.h"
#include "lt/lt_refuse.h"

int lt_plan_count(const gpu_context *ctx) {
  return ctx->plans ? lt_plan_cache_count(ctx->plans) : 0;
}

/* The context's plan cache, made on first use (the context holds it for
 * the wrapper and releases it through plans_release); NULL when out of
 * host memory. */
static lt_plan_cache *plans_of(gpu_context *ctx) {
  if (!ctx->plans && lt_plan_cache_create(&ctx->plans) == 0)
    ctx->plans_release = lt_plan_cache_destroy;
  return ctx->plans;
}

lt_plan_info lt_plan_info_at(const gpu_context *ctx, int i) {
  return lt_plan_cache_at(ctx->plans, i)->info;
}

static cublasLtEpilogue_t to_cublas(lt_epilogue epilogue) {
  switch (epilogue) {
  case LT_EPILOGUE_BIAS: return CUBLASLT_EPILOGUE_BIAS;
  case LT_EPILOGUE_RELU_AUX_BIAS: return CUBLASLT_EPILOGUE_RELU_AUX_BIAS;
  case LT_EPILOGUE_DRELU_BGRAD: return CUBLASLT_EPILOGUE_DRELU_BGRAD;
  case LT_EPILOGUE_BGRADB: return CUBLASLT_EPILOGUE_BGRADB;
  case LT_EPILOGUE_GELU_AUX_BIAS: return CUBLASLT_EPILOGUE_GELU_AUX_BIAS;
  case LT_EPILOGUE_DGELU_BGRAD: return CUBLASLT_EPILOGUE_DGELU_BGRAD;
  case LT_EPILOGUE_DRELU: return CUBLASLT_EPILOGUE_DRELU;
  case LT_EPILOGUE_DGELU: return CUBLASLT_EPILOGUE_DGELU;
  case LT_EPILOGUE_BGRADA: return CUBLASLT_EPILOGUE_BGRADA;
  default: return CUBLASLT_EPILOGUE_DEFAULT;
  }
}

const void *lt_call_bias_vector(const lt_matmul_call *c) {
  return c->d_bias ? c->d_bias : (const void *)c->d_bias_grad;
}

lt_matmul_call lt_call_plain(const lt_matmul_call *c) {
  lt_matmul_call plain = *c;
  plain.d_bias = NULL;
  plain.d_bias_grad = NULL;
  plain.d_aux = NULL;
  plain.d_partials = NULL;
  plain.pick = (lt_pick){.algo = c->pick.plain};
  plain.shape.epilogue = LT_EPILOGUE_DEFAULT;
  plain.shape.aux_ld = 0;
  return plain;
}

/* Largest power of two up to 256 that divides the address (0 for NULL). */
static unsigned alignment_of(const void *p) {
  uintptr_t address = (uintptr_t)p;
  if (!address) return 0;
  unsigned a = 256;
  while (address % a)
    a /= 2;
  return a;
}

/* The key of `call` under compute type `compute`, from a zeroed struct
 * (keys are compared byte for byte: lt_plan.h). */
static lt_plan_key plan_key_of(const lt_matmul_call *call,
                               cublasComputeType_t compute) {
  lt_plan_key key;
  memset(&key, 0, sizeof key);
  key.shape = call->shape;
  key.compute = compute;
  key.align_a = alignment_of(call->d_a);
  key.align_b = alignment_of(call->d_b);
  key.align_c = alignment_of(call->d_c ? call->d_c : call->d_d);
  key.align_d = alignment_of(call->d_d);
  key.align_bias = alignment_of(lt_call_bias_vector(call));
  key.align_aux = alignment_of(call->d_aux);
  return key;
}

static cudaDataType_t to_cuda(lt_dtype type) {
  return type == LT_DTYPE_BF16  ? CUDA_R_16BF
         : type == LT_DTYPE_F16 ? CUDA_R_16F
                                : CUDA_R_32F;
}

static cudaDataType_t to_cuda_fp8(lt_fp8 format, lt_dtype otherwise) {
  return format == LT_FP8_E4M3   ? CUDA_R_8F_E4M3
         : format == LT_FP8_E5M2 ? CUDA_R_8F_E5M2
                                 : to_cuda(otherwise);
}

static int set_attr(cublasLtMatmulDesc_t op, cublasLtMatmulDescAttributes_t a,
                    const void *value, size_t size) {
  CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(op, a, value, size));
  return 0;
}

/* An FP8 D's attributes (lt_matmul.h): its scale and amax pointers, and
 * the bias and GELU aux types in the storage type, explicitly: unset they
 * follow D (cublasLt.h: BIAS_DATA_TYPE; EPILOGUE_AUX_DATA_TYPE, "for fp8
 * kernels with output type CUDA_R_8F_E4M3 the aux data type can be
 * CUDA_R_8F_E4M3 or CUDA_R_16F"), which would change what the backward
 * reads. The ReLU aux is a bit-mask whatever the type, and is left as it
 * was measured (no aux type set). */
static int describe_fp8_output(lt_plan *p, const lt_matmul_call *c) {
  const lt_shape *s = &p->key.shape;
  int32_t type = (int32_t)to_cuda(s->type);
  if (set_attr(p->op, CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, &c->d_d_scale,
               sizeof c->d_d_scale) ||
      set_attr(p->op, CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, &c->d_amax_d,
               sizeof c->d_amax_d))
    return -1;
  if (lt_epilogue_reads_bias(s->epilogue) &&
      set_attr(p->op, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &type, sizeof type))
    return -1;
  if (s->epilogue == LT_EPILOGUE_GELU_AUX_BIAS &&
      set_attr(p->op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE, &type,
               sizeof type))
    return -1;
  return 0;
}

/* Descriptor and layouts. The bias and aux pointers are set before the
 * heuristic is asked: it reads their alignment (cuBLASLt docs,
 * cublasLtMatmulAlgoGetHeuristic). */
static int plan_describe(lt_plan *p, const lt_matmul_call *c) {
  const lt_shape *s = &p->key.shape;
  CUBLAS_CHECK(cublasLtMatmulDescCreate(&p->op, p->key.compute, CUDA_R_32F));
  cublasOperation_t ta = s->transa ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t tb = s->transb ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasLtEpilogue_t epilogue = to_cublas(s->epilogue);
  const void *bias = lt_call_bias_vector(c);
  if (set_attr(p->op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta) ||
      set_attr(p->op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb) ||
      set_attr(p->op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue,
               sizeof epilogue))
    return -1;
  if (bias &&
      set_attr(p->op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias))
    return -1;
  if (c->d_aux) {
    int64_t aux_ld = s->aux_ld;
    if (set_attr(p->op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &c->d_aux,
                 sizeof c->d_aux) ||
        set_attr(p->op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &aux_ld,
                 sizeof aux_ld))
      return -1;
  }
  if (lt_shape_is_fp8(s)) {
    int8_t fast = (int8_t)(s->fast_accum != 0);
    if (set_attr(p->op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &c->d_a_scale,
                 sizeof c->d_a_scale) ||
        set_attr(p->op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &c->d_b_scale,
                 sizeof c->d_b_scale) ||
        set_attr(p->op, CUBLASLT_MATMUL_DESC_FAST_ACCUM, &fast, sizeof fast))
      return -1;
  }
  if (s->d_fp8 && describe_fp8_output(p, c) != 0) return -1;
  p->bias_set = bias;
  p->aux_set = c->d_aux;
  p->a_scale_set = c->d_a_scale;
  p->b_scale_set = c->d_b_scale;
  p->d_scale_set = c->d_d_scale;
  p->amax_d_set = c->d_amax_d;
  cudaDataType_t type = to_cuda(s->type);
  CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&p->a, to_cuda_fp8(s->a_fp8, s->type),
                                          s->transa ? s->k : s->m,
                                          s->transa ? s->m : s->k, s->lda));
  CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&p->b, to_cuda_fp8(s->b_fp8, s->type),
                                          s->transb ? s->n : s->k,
                                          s->transb ? s->k : s->n, s->ldb));
  CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&p->c, type, s->m, s->n, s->ldd));
  CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&p->d, to_cuda_fp8(s->d_fp8, s->type),
                                          s->m, s->n, s->ldd));
  return 0;
}

/* 1 when the call computes in TF32 (F32 storage, a TF32 context). */
static int plan_tf32(const gpu_context *ctx, const lt_matmul_call *call) {
  return call->shape.type == LT_DTYPE_F32 &&
         ctx->options.precision == GPU_PRECISION_TF32;
}

static cublasComputeType_t plan_compute(int tf32) {
  return tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
}

static lt_plan *plan_find_or_build(gpu_context *ctx,
                                   const lt_matmul_call *call) {
  int tf32 = plan_tf32(ctx, call);
  lt_plan_key key = plan_key_of(call, plan_compute(tf32));
  lt_plan_cache *plans = plans_of(ctx);
  lt_plan *p = plans ? lt_plan_cache_find(plans, &key) : NULL;
  if (p) return p;
  p = plans ? lt_plan_cache_reserve(plans) : NULL;
  if (!p) {
    lt_refuse(ctx, &call->shape, "out of host memory for the plan cache");
    return NULL;
  }
  p->key = key;
  p->info.shape = call->shape;
  p->info.tf32 = tf32;
  if (plan_describe(p, call) != 0 || lt_plan_choose(ctx, p) != 0) {
    if (!ctx->last_error[0])
      lt_refuse(ctx, &call->shape,
                "building the plan failed (see the line above)");
    lt_plan_release(p);
    return NULL;
  }
  lt_plan_cache_commit(plans);
  return p;
}

lt_plan *lt_plan_for(gpu_context *ctx, const lt_matmul_call *call) {
  ctx->last_error[0] = '\0';
  if (lt_matmul_check(ctx, call) != 0) return NULL;
  return plan_find_or_build(ctx, call);
}

int lt_matmul_plannable(gpu_context *ctx, const lt_matmul_call *call) {
  ctx->last_error[0] = '\0';
  if (lt_matmul_check(ctx, call) != 0) return -1;
  lt_plan p = {.key = plan_key_of(call, plan_compute(plan_tf32(ctx, call)))};
  int status =
      plan_describe(&p, call) != 0 || lt_plan_choose(ctx, &p) != 0 ? -1 : 0;
  if (status != 0 && !ctx->last_error[0])
    lt_refuse(ctx, &call->shape,
              "describing the call failed (see the line above)");
  lt_plan_release(&p);
  return status;
}

int lt_matmul(gpu_context *ctx, const lt_matmul_call *call) {
  return lt_matmul_on(ctx, GPU_LANE_MAIN, call);
}

int lt_plan_bind(gpu_context *ctx, lt_plan *p, const lt_matmul_call *call) {
  /* Host-side descriptor writes: cublasLtMatmul reads them when it
   * enqueues, so earlier launches keep the pointers they were given. */
  const void *bias = lt_call_bias_vector(call);
  if (bias != p->bias_set) {
    if (set_attr(p->op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias,
                 sizeof bias) != 0)
      return lt_refuse(ctx, &call->shape, "setting the bias pointer failed");
    p->bias_set = bias;
  }
  if (call->d_aux != p->aux_set) {
    if (set_attr(p->op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &call->d_aux,
                 sizeof call->d_aux) != 0)
      return lt_refuse(ctx, &call->shape, "setting the aux pointer failed");
    p->aux_set = call->d_aux;
  }
  if (call->d_a_scale != p->a_scale_set || call->d_b_scale != p->b_scale_set) {
    if (set_attr(p->op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &call->d_a_scale,
                 sizeof call->d_a_scale) != 0 ||
        set_attr(p->op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &call->d_b_scale,
                 sizeof call->d_b_scale) != 0)
      return lt_refuse(ctx, &call->shape, "setting the scale pointers failed");
    p->a_scale_set = call->d_a_scale;
    p->b_scale_set = call->d_b_scale;
  }
  if (call->d_d_scale != p->d_scale_set || call->d_amax_d != p->amax_d_set) {
    if (set_attr(p->op, CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, &call->d_d_scale,
                 sizeof call->d_d_scale) != 0 ||
        set_attr(p->op, CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, &call->d_amax_d,
                 sizeof call->d_amax_d) != 0)
      return lt_refuse(ctx, &call->shape,
                       "setting the D scale and amax pointers failed");
    p->d_scale_set = call->d_d_scale;
    p->amax_d_set = call->d_amax_d;
  }
  return 0;
}

int lt_matmul_on(gpu_context *ctx, int lane, const lt_matmul_call *call) {
  ctx->last_error[0] = '\0';
  if (lt_matmul_check(ctx, call) != 0) return -1;
  lt_plan *p = plan_find_or_build(ctx, call);
  if (!p) return -1;
  const cublasLtMatmulAlgo_t *algo = lt_plan_algo(p, call->pick.algo);
  if (!algo)
    return lt_refuse(ctx, &call->shape,
                     "expected a pick among the plan's %d candidates, found "
                     "candidate %d (a tuning for another plan?)",
                     p->cand_count, call->pick.algo);
  if (lt_plan_bind(ctx, p, call) != 0) return -1;
  cublasStatus_t status = lt_plan_launch(ctx, lane, p, call, algo);
  if (status != CUBLAS_STATUS_SUCCESS)
    return lt_refuse(ctx, &call->shape, "cublasLtMatmul failed: %s (%s)",
                     cublasLtGetStatusName(status),
                     cublasLtGetStatusString(status));
  return 0;
}
