/* lt_heuristic.c: what the heuristic offers a built plan (lt_plan.h):
 * its single answer, the plan's own algorithm (lt_plan_choose), the longer
 * list of challengers asked for only where needed (lt_plan_list), and the
 * algorithm a pick names (lt_plan_algo). */
#include <stdint.h>
#include <string.h>

#include "gpu/gpu_check.h"
#include "lt/lt_plan.h"
#include "lt/lt_refuse.h"

/* Asks the heuristic for candidates (one without autotuning), telling it
 * the alignment the plan's operands have: it assumes 256 bytes unless
 * told (CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_*_BYTES). */
static int plan_candidates(gpu_context *ctx, lt_plan *p,
                           cublasLtMatmulHeuristicResult_t *results, int wanted,
                           int *count) {
  cublasLtMatmulPreference_t pref = NULL;
  CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
  size_t workspace = GPU_WORKSPACE_BYTES;
  cublasStatus_t status = cublasLtMatmulPreferenceSetAttribute(
      pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
      sizeof workspace);
  uint32_t align[4] = {p->key.align_a, p->key.align_b, p->key.align_c,
                       p->key.align_d};
  cublasLtMatmulPreferenceAttributes_t which[4] = {
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES};
  for (int i = 0; i < 4 && status == CUBLAS_STATUS_SUCCESS; i++)
    status = cublasLtMatmulPreferenceSetAttribute(pref, which[i], &align[i],
                                                  sizeof align[i]);
  /* 16-bit outputs: no split-K whose partial sums are kept in the output
   * type. Measured on the H200: such candidates round each partial to
   * BF16, and a sum with cancellation came out 1 % off (2^-7, where FP32
   * partials are within 1e-7). Partials in the compute type (FP32) or in
   * place keep the FP32 accumulation the precision promises. */
  uint32_t schemes = CUBLASLT_REDUCTION_SCHEME_NONE |
                     CUBLASLT_REDUCTION_SCHEME_INPLACE |
                     CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;
  if (status == CUBLAS_STATUS_SUCCESS && p->key.shape.type != LT_DTYPE_F32)
    status = cublasLtMatmulPreferenceSetAttribute(
        pref, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, &schemes,
        sizeof schemes);
  *count = 0;
  if (status == CUBLAS_STATUS_SUCCESS)
    status = cublasLtMatmulAlgoGetHeuristic(ctx->lt, p->op, p->a, p->b, p->c,
                                            p->d, pref, wanted, results, count);
  cublasLtMatmulPreferenceDestroy(pref);
  if (status != CUBLAS_STATUS_SUCCESS || *count == 0)
    return lt_refuse(ctx, &p->key.shape,
                     "the heuristic found no algorithm: %s (%s)",
                     cublasLtGetStatusName(status),
                     *count == 0 && status == CUBLAS_STATUS_SUCCESS
                         ? "zero candidates"
                         : cublasLtGetStatusString(status));
  return 0;
}

int lt_plan_choose(gpu_context *ctx, lt_plan *p) {
  cublasLtMatmulHeuristicResult_t results[1];
  int count = 0;
  if (plan_candidates(ctx, p, results, 1, &count)) return -1;
  p->algo = p->cand[0] = results[0].algo;
  p->cand_count = 1;
  p->info.listed = ctx->options.autotune == GPU_AUTOTUNE_OFF;
  p->info.single_at = p->info.listed ? 0 : -1;
  p->info.offered = 1;
  p->info.accepted = 1;
  return 0;
}

/* Asked for more, the heuristic is not promised to put its single answer
 * first; so the list's members follow that answer as challengers, the
 * answer left out of them where it recurs (info.single_at says where it
 * stood). It recurs as the same algorithm by its attributes (lt_algo_id),
 * not its bytes: on the H200 one process's single answer matched its list
 * byte for byte and another's did not, so the two numbered the same
 * candidates differently. Only the first such member is left out. Which of them
 * compute the same numbers is checked later, when the step tuner asks
 * (lt_matmul_candidates). */
int lt_plan_list(gpu_context *ctx, lt_plan *p) {
  if (p->info.listed) return 0;
  cublasLtMatmulHeuristicResult_t results[LT_MAX_CANDIDATES];
  int count = 0;
  if (plan_candidates(ctx, p, results, LT_MAX_CANDIDATES, &count)) return -1;
  lt_algo_id first;
  lt_algo_id_of(&first, &p->algo);
  cublasLtMatmulAlgo_t cand[LT_MAX_CANDIDATES];
  int n = 1, single_at = -1;
  cand[0] = p->algo;
  for (int i = 0; i < count && n < LT_MAX_CANDIDATES; i++) {
    lt_algo_id at;
    lt_algo_id_of(&at, &results[i].algo);
    if (single_at < 0 && memcmp(&at, &first, sizeof at) == 0)
      single_at = i; /* left out once: a second equal one stays */
    else
      cand[n++] = results[i].algo;
  }
  /* Candidates adopted from the step tuner's context apart keep their
   * place: the list must name the same algorithm there. */
  for (int i = 1; i < LT_MAX_CANDIDATES; i++) {
    if (!p->cand_adopted[i]) continue;
    lt_algo_id kept, listed = {{0}};
    lt_algo_id_of(&kept, &p->cand[i]);
    if (i < n) lt_algo_id_of(&listed, &cand[i]);
    if (i >= n || memcmp(&kept, &listed, sizeof kept) != 0) {
      char kept_name[96], listed_name[96] = "none";
      lt_algo_id_name(kept_name, sizeof kept_name, &kept);
      if (i < n) lt_algo_id_name(listed_name, sizeof listed_name, &listed);
      return lt_refuse(ctx, &p->key.shape,
                       "this context's candidate list numbers candidate %d "
                       "otherwise than the step tuner's context apart, whose "
                       "choice a call runs (kept %s, listed %s)",
                       i, kept_name, listed_name);
    }
  }
  memcpy(p->cand, cand, (size_t)n * sizeof cand[0]);
  p->cand_count = n;
  p->info.single_at = single_at;
  p->info.offered = n;
  p->info.listed = 1;
  memset(p->cand_adopted, 0, sizeof p->cand_adopted);
  return 0;
}

const cublasLtMatmulAlgo_t *lt_plan_algo(const lt_plan *p, int which) {
  if (which == 0) return &p->algo;
  int i = which - 1;
  return i < p->cand_count || (i < LT_MAX_CANDIDATES && p->cand_adopted[i])
             ? &p->cand[i]
             : NULL;
}
