/* lt_candidates.c: a plan's heuristic candidates by count, by index and
 * as stored in the tuning cache (lt_matmul.h: lt_matmul_candidate_count,
 * _algo, _find): each named by cuBLASLt's configuration attributes
 * (lt_algo_id), which are the same in every process. */
#include <string.h>

#include "lt/lt_matmul.h"
#include "lt/lt_plan.h"

int lt_matmul_candidate_count(gpu_context *ctx, const lt_matmul_call *call) {
  lt_plan *p = lt_plan_for(ctx, call);
  return p && lt_plan_list(ctx, p) == 0 ? p->cand_count : -1;
}

/* The attributes of `algo` (each read into a zeroed 8-byte slot, little
 * endian: at most 4 bytes each). */
static void algo_id(lt_algo_id *id, const cublasLtMatmulAlgo_t *algo) {
  memset(id, 0, sizeof *id);
  for (int f = 0; f < LT_ALGO_FIELDS; f++) {
    size_t written = 0;
    unsigned char value[8] = {0};
    if (cublasLtMatmulAlgoConfigGetAttribute(
            algo, (cublasLtMatmulAlgoConfigAttributes_t)f, NULL, 0, &written) !=
            CUBLAS_STATUS_SUCCESS ||
        written > sizeof value ||
        cublasLtMatmulAlgoConfigGetAttribute(
            algo, (cublasLtMatmulAlgoConfigAttributes_t)f, value, written,
            &written) != CUBLAS_STATUS_SUCCESS) {
      id->field[f] = -1;
      continue;
    }
    unsigned long long v = 0;
    for (size_t b = written; b-- > 0;)
      v = v << 8 | value[b];
    id->field[f] = (long long)v;
  }
}

int lt_matmul_candidate_algo(gpu_context *ctx, const lt_matmul_call *call,
                             int index, cublasLtMatmulAlgo_t *algo,
                             lt_algo_id *id) {
  lt_plan *p = lt_plan_for(ctx, call);
  if (!p || index < 0 ||
      (index >= p->cand_count &&
       (lt_plan_list(ctx, p) != 0 || index >= p->cand_count)))
    return -1;
  *algo = p->cand[index];
  algo_id(id, algo);
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
    algo_id(&at, &p->cand[0]);
    if (memcmp(&at, id, sizeof at) == 0) return 0;
  }
  if (p && lt_plan_list(ctx, p) != 0) return -1;
  if (p && index > 0 && index < p->cand_count) {
    lt_algo_id at;
    algo_id(&at, &p->cand[index]);
    if (memcmp(&at, id, sizeof at) == 0) return index;
  }
  for (int i = 0; p && i < p->cand_count; i++) {
    if (memcmp(&p->cand[i], algo, sizeof *algo) == 0) return i;
    lt_algo_id other;
    algo_id(&other, &p->cand[i]);
    if (memcmp(&other, id, sizeof other) == 0) {
      found = i;
      matches++;
    }
  }
  return matches == 1 ? found : -1;
}
