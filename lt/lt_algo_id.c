/* lt_algo_id.c: an algorithm's attributes (lt_plan.h: lt_algo_id_of), by
 * which the wrapper tells candidates apart: the same in every process,
 * where the opaque bytes were seen to differ. */
#include <stdio.h>
#include <string.h>

#include "lt/lt_plan.h"

void lt_algo_id_of(lt_algo_id *id, const cublasLtMatmulAlgo_t *algo) {
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

void lt_algo_id_name(char *out, size_t size, const lt_algo_id *id) {
  snprintf(out, size, "id %lld tile %lld stages %lld",
           id->field[CUBLASLT_ALGO_CONFIG_ID],
           id->field[CUBLASLT_ALGO_CONFIG_TILE_ID],
           id->field[CUBLASLT_ALGO_CONFIG_STAGES_ID]);
}
