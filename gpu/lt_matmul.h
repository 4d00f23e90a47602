/* lt_matmul.h: THE cuBLASLt wrapper. Every matmul in the project, fused or
 * not, goes through lt_matmul().
 *
 * Conventions (cuBLASLt is column-major): D (m, n) = op(A) (m, k) * op(B)
 * (k, n), alpha = 1, beta = 0, C aliased to D, FP32 storage; the compute
 * type is FP32 or TF32 (gpu_options.tf32). The epilogue adds what the
 * table in DESIGN.md section 3 says:
 *
 *   LT_EPILOGUE_DEFAULT        D = op(A) op(B)
 *   LT_EPILOGUE_BIAS           D = op(A) op(B) + bias[m] (broadcast over n)
 *   LT_EPILOGUE_RELU_AUX_BIAS  Z = op(A) op(B) + bias[m]; D = max(Z, 0);
 *                              aux bit (i, j) = (Z[i, j] >= 0)
 *   LT_EPILOGUE_DRELU_BGRAD    G = op(A) op(B); D = G masked by aux bits;
 *                              bias[i] = sum_j D[i, j]   (written, length m)
 *   LT_EPILOGUE_BGRADB         D = op(A) op(B); bias[j] = sum_p op(B)[p, j]
 *                              (written, length n); needs transb = 1
 *
 * The aux bit-mask is column-major: bit (i, j) is bit i % 8 of byte
 * j * aux_ld / 8 + i / 8; aux_ld is in bits, a multiple of 128 and >= m
 * (cublasLt.h, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD).
 *
 * Plans (descriptor, layouts, algorithm) are cached: the first call with a
 * given shape, epilogue and operand alignment builds one, later calls only
 * set their bias/aux pointers on it (host-side) and launch. With
 * gpu_options.autotune the plan times the heuristic's candidates on the
 * first call's buffers and keeps the fastest whose outputs match the first
 * candidate's: bitwise (EXACT) or within rounding (FAST). Plans are built
 * outside CUDA graph capture: run a step once before capturing it.
 */
#ifndef MNIST_EPILOGS_LT_MATMUL_H
#define MNIST_EPILOGS_LT_MATMUL_H

#include "gpu_context.h"
#include "lt_call.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a built plan chose, for reports. */
typedef struct lt_plan_info {
  int m, n, k;
  lt_epilogue epilogue;
  int candidates;       /* heuristic results that ran */
  int chosen;           /* index of the kept candidate (0: heuristic's first) */
  float chosen_us;      /* median time of the kept one (autotune only) */
  float first_us;       /* median time of the first working candidate */
} lt_plan_info;

/* Enqueues the call on ctx->stream (building its plan on first use).
 * Returns 0, or -1 with the reason in ctx->last_error and on stderr: a rule
 * broken (named, with the shapes), or a cuBLAS status by name. */
int lt_matmul(gpu_context *ctx, const lt_matmul_call *call);

/* The same on a lane (GPU_LANE_MAIN or GPU_LANE_SIDE): its stream and its
 * workspace. */
int lt_matmul_on(gpu_context *ctx, int lane, const lt_matmul_call *call);

/* Checks the call against the epilogue rules (shapes, leading dimensions,
 * 16-byte alignment, the pointers the epilogue needs, aux_ld, BGRADB's
 * transb) without running it. Returns 0, or -1 with the broken rule named
 * in ctx->last_error and on stderr. */
int lt_matmul_check(gpu_context *ctx, const lt_matmul_call *call);

int lt_plan_cache_create(lt_plan_cache **out);
void lt_plan_cache_destroy(lt_plan_cache *cache);
int lt_plan_cache_count(const lt_plan_cache *cache);
/* The i-th plan's info, 0 <= i < count. */
lt_plan_info lt_plan_cache_info(const lt_plan_cache *cache, int i);

#ifdef __cplusplus
}
#endif

#endif
