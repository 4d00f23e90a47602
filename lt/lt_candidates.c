/* lt_candidates.c: a plan's heuristic candidates by index, as stored in
 * the tuning cache and as the step tuner's context apart chose them
 * (lt_matmul.h: lt_matmul_candidate_algo, _find, _adopt): each named by
 * cuBLASLt's configuration attributes (lt_algo_id), which are the same in every
 * process. */
#include <string.h>

#include "lt/lt_matmul.h"
#include "lt/lt_plan.h"
#include "lt/lt_refuse.h"

int lt_matmul_candidate_algo(gpu_context *ctx, const lt_matmul_call *call,
                             int index, cublasLtMatmulAlgo_t *algo,
                             lt_algo_id *id) {
  lt_plan *p = lt_plan_for(ctx, call);
  if (!p || index < 0 || index >= LT_MAX_CANDIDATES ||
      (index >= p->cand_count && !p->cand_adopted[index] &&
       (lt_plan_list(ctx, p) != 0 || index >= p->cand_count)))
    return -1;
  *algo = p->cand[index];
  lt_algo_id_of(id, algo);
  return 0;
}

int lt_matmul_candidate_find(gpu_context *ctx, const lt_matmul_call *call,
                             int index, const cublasLtMatmulAlgo_t *algo,
                             const lt_algo_id *id) {
  lt_plan *p = lt_plan_for(ctx, call);
  int found = -1, matches = 0;
  /* The first candidate needs no list (lt_plan_list says why). */
  if (p && index == 0) {
    lt_algo_id at;
    lt_algo_id_of(&at, &p->cand[0]);
    if (memcmp(&at, id, sizeof at) == 0) return 0;
  }
  if (p && lt_plan_list(ctx, p) != 0) return -1;
  if (p && index > 0 && index < p->cand_count) {
    lt_algo_id at;
    lt_algo_id_of(&at, &p->cand[index]);
    if (memcmp(&at, id, sizeof at) == 0) return index;
  }
  for (int i = 0; p && i < p->cand_count; i++) {
    if (memcmp(&p->cand[i], algo, sizeof *algo) == 0) return i;
    lt_algo_id other;
    lt_algo_id_of(&other, &p->cand[i]);
    if (memcmp(&other, id, sizeof other) == 0) {
      found = i;
      matches++;
    }
  }
  return matches == 1 ? found : -1;
}

int lt_matmul_candidate_adopt(gpu_context *ctx, const lt_matmul_call *call,
                              int index, const cublasLtMatmulAlgo_t *algo,
                              const lt_algo_id *id) {
  lt_plan *p = lt_plan_for(ctx, call);
  if (!p || index < 0 || index >= LT_MAX_CANDIDATES) return -1;
  if (index == 0 || index < p->cand_count || p->info.listed)
    return lt_matmul_candidate_find(ctx, call, index, algo, id);
  if (!p->cand_adopted[index]) {
    /* What this context's cuBLASLt says of it for this plan: supported,
     * and within the workspace every launch gets. */
    cublasLtMatmulHeuristicResult_t result;
    if (lt_plan_bind(ctx, p, call) != 0) return -1;
    cublasStatus_t status = cublasLtMatmulAlgoCheck(ctx->lt, p->op, p->a, p->b,
                                                    p->c, p->d, algo, &result);
    if (status != CUBLAS_STATUS_SUCCESS)
      return lt_refuse(ctx, &call->shape,
                       "candidate %d as the tuner's context apart chose it "
                       "does not run here: %s (%s)",
                       index, cublasLtGetStatusName(status),
                       cublasLtGetStatusString(status));
    if (result.workspaceSize > GPU_WORKSPACE_BYTES)
      return lt_refuse(ctx, &call->shape,
                       "candidate %d as the tuner's context apart chose it "
                       "needs %zu bytes of workspace, at most %zu here",
                       index, result.workspaceSize,
                       (size_t)GPU_WORKSPACE_BYTES);
    p->cand[index] = *algo;
    p->cand_adopted[index] = 1;
  }
  /* Adopted already (another trainer on this context, e.g. a benchmark
   * row of the same shape): the same algorithm by its attributes, as
   * lt_matmul_candidate_find names one (one algorithm's bytes were seen to
   * differ between processes). */
  lt_algo_id kept;
  lt_algo_id_of(&kept, &p->cand[index]);
  if (memcmp(&kept, id, sizeof kept) != 0) {
    char kept_name[96], offered_name[96];
    lt_algo_id_name(kept_name, sizeof kept_name, &kept);
    lt_algo_id_name(offered_name, sizeof offered_name, id);
    return lt_refuse(ctx, &call->shape,
                     "candidate %d was adopted already as another algorithm "
                     "(kept %s, offered %s)",
                     index, kept_name, offered_name);
  }
  return index;
}
