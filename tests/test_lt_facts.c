/* test_lt_facts.c: the cuBLASLt behaviours the project relies on that the
 * header does not state, held by calling cuBLASLt directly (not through
 * the wrapper, whose own checks would hide what cuBLASLt does):
 *   - RELU_AUX_BIAS's bit is !(z < 0): exact zeros (and -0) pass, NaN
 *     passes as NaN with its bit set, -inf is cut;
 *   - the bit order: row i is bit i % 8 of byte i / 8 of its column;
 *   - BGRADB with TRANSB = N is refused (no candidate, or NOT_SUPPORTED),
 *     not run on the wrong operand; BGRADA likewise with TRANSA = T.
 * GPU only: skips (77) without one. */
#include <check.h>
#include <cublasLt.h>
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tests/test_gpu.h"
#include "tests/test_util.h"

static cublasLtHandle_t lt;
static void *workspace;
enum { WORKSPACE = 32 << 20 };

/* Runs D (m, n) = op(A) op(B) with `epilogue` and FP32 everything;
 * returns the first failing status (heuristic or matmul), or SUCCESS. */
static cublasStatus_t run(int m, int n, int k, cublasOperation_t ta,
                          cublasOperation_t tb, cublasLtEpilogue_t epilogue,
                          const float *a, int lda, const float *b, int ldb,
                          float *d, void *bias, void *aux, int64_t aux_ld) {
  cublasLtMatmulDesc_t op = NULL;
  cublasLtMatrixLayout_t la = NULL, lb = NULL, ld = NULL;
  cublasLtMatmulPreference_t pref = NULL;
  cublasStatus_t s =
      cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta,
                                 sizeof ta);
  cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb,
                                 sizeof tb);
  cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue,
                                 sizeof epilogue);
  if (bias)
    cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias,
                                   sizeof bias);
  if (aux) {
    cublasLtMatmulDescSetAttribute(
        op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &aux, sizeof aux);
    cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD,
                                   &aux_ld, sizeof aux_ld);
  }
  cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, ta == CUBLAS_OP_N ? m : k,
                             ta == CUBLAS_OP_N ? k : m, lda);
  cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, tb == CUBLAS_OP_N ? k : n,
                             tb == CUBLAS_OP_N ? n : k, ldb);
  cublasLtMatrixLayoutCreate(&ld, CUDA_R_32F, m, n, m);
  cublasLtMatmulPreferenceCreate(&pref);
  size_t ws = WORKSPACE;
  cublasLtMatmulPreferenceSetAttribute(
      pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
  cublasLtMatmulHeuristicResult_t result;
  int count = 0;
  if (s == CUBLAS_STATUS_SUCCESS)
    s = cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, ld, ld, pref, 1, &result,
                                       &count);
  if (s == CUBLAS_STATUS_SUCCESS && count == 0) s = CUBLAS_STATUS_NOT_SUPPORTED;
  const float alpha = 1.0f, beta = 0.0f;
  if (s == CUBLAS_STATUS_SUCCESS)
    s = cublasLtMatmul(lt, op, &alpha, a, la, b, lb, &beta, d, ld, d, ld,
                       &result.algo, workspace, WORKSPACE, 0);
  cudaDeviceSynchronize();
  cublasLtMatmulPreferenceDestroy(pref);
  cublasLtMatrixLayoutDestroy(ld);
  cublasLtMatrixLayoutDestroy(lb);
  cublasLtMatrixLayoutDestroy(la);
  cublasLtMatmulDescDestroy(op);
  return s;
}

/* A = 0, so Z = bias: the ReLU decision and the bit layout on chosen
 * values, 9 rows (crossing a byte) x 2 columns. */
START_TEST(relu_bit_rule_and_order) {
  enum { M = 9, N = 2, K = 4 };
  const float bias[M] = {-1.0f,     -0.0f,    0.0f, 1.0f, NAN,
                         -INFINITY, INFINITY, 2.0f, -2.0f};
  const int bit[M] = {0, 1, 1, 1, 1, 0, 1, 1, 0};
  float *zeros = test_upload(NULL, sizeof(float) * K * 16);
  test_fill_device(zeros, 0, sizeof(float) * K * 16);
  float *d_bias = test_upload(bias, sizeof bias);
  float *d_d = test_upload(NULL, sizeof(float) * M * N);
  uint8_t *d_aux = test_upload(NULL, 16 * N);
  test_fill_device(d_aux, 0, 16 * N);
  ck_assert_int_eq(run(M, N, K, CUBLAS_OP_T, CUBLAS_OP_N,
                       CUBLASLT_EPILOGUE_RELU_AUX_BIAS, zeros, K, zeros, K, d_d,
                       d_bias, d_aux, 128),
                   CUBLAS_STATUS_SUCCESS);
  float d[M * N];
  uint8_t aux[16 * N];
  test_download(d, d_d, sizeof d);
  test_download(aux, d_aux, sizeof aux);
  for (int j = 0; j < N; j++)
    for (int i = 0; i < M; i++) {
      int got = (aux[j * 16 + i / 8] >> (i % 8)) & 1;
      ck_assert_msg(got == bit[i], "z = %g: bit %d, expected %d", bias[i], got,
                    bit[i]);
      float y = d[j * M + i];
      if (isnan(bias[i]))
        ck_assert_msg(isnan(y), "ReLU(NaN) = %g", y);
      else
        ck_assert_msg(y == (bit[i] ? bias[i] : 0.0f), "ReLU(%g) = %g", bias[i],
                      y);
    }
  test_free(zeros);
  test_free(d_bias);
  test_free(d_d);
  test_free(d_aux);
}
END_TEST

/* A bias-gradient epilogue with zeroed 16 x 8 x 32 FP32 operands, the
 * summed operand transposed the way named first (`ok`: must run) and then
 * the other way (must be refused, not run on the wrong operand). */
static void check_transpose_rule(cublasLtEpilogue_t epilogue, const char *name,
                                 const cublasOperation_t ok[2],
                                 const cublasOperation_t wrong[2]) {
  enum { M = 16, N = 8, K = 32 };
  float *buf = test_upload(NULL, sizeof(float) * 4096);
  test_fill_device(buf, 0, sizeof(float) * 4096);
  const cublasOperation_t *ops[2] = {ok, wrong};
  cublasStatus_t got[2];
  for (int w = 0; w < 2; w++) {
    int ta = ops[w][0] == CUBLAS_OP_T, tb = ops[w][1] == CUBLAS_OP_T;
    got[w] = run(M, N, K, ops[w][0], ops[w][1], epilogue, buf, ta ? K : M,
                 buf + 1024, tb ? N : K, buf + 2048, buf + 3072, NULL, 0);
    printf("%s with TRANSA = %c, TRANSB = %c: %s\n", name, ta ? 'T' : 'N',
           tb ? 'T' : 'N', cublasLtGetStatusName(got[w]));
  }
  ck_assert_msg(got[0] == CUBLAS_STATUS_SUCCESS, "%s the right way: %s", name,
                cublasLtGetStatusName(got[0]));
  ck_assert_msg(got[1] != CUBLAS_STATUS_SUCCESS,
                "%s the wrong way ran (%s): check which operand it sums", name,
                cublasLtGetStatusName(got[1]));
  test_free(buf);
}

/* BGRADB sums op(B) and needs TRANSB = T; with TRANSB = N cuBLASLt must
 * refuse (a silent sum of the wrong operand would be the danger). */
START_TEST(bgradb_needs_transb_t) {
  const cublasOperation_t ok[2] = {CUBLAS_OP_N, CUBLAS_OP_T};
  const cublasOperation_t wrong[2] = {CUBLAS_OP_N, CUBLAS_OP_N};
  check_transpose_rule(CUBLASLT_EPILOGUE_BGRADB, "BGRADB", ok, wrong);
}
END_TEST

/* BGRADA: the header states no transpose rule; BGRADB's (TRANSB = T)
 * mirrored is TRANSA = N, which the wrapper enforces: measured here. */
START_TEST(bgrada_needs_transa_n) {
  const cublasOperation_t ok[2] = {CUBLAS_OP_N, CUBLAS_OP_T};
  const cublasOperation_t wrong[2] = {CUBLAS_OP_T, CUBLAS_OP_T};
  check_transpose_rule(CUBLASLT_EPILOGUE_BGRADA, "BGRADA", ok, wrong);
}
END_TEST

int main(void) {
  test_require_gpu("lt_facts");
  if (cublasLtCreate(&lt) != CUBLAS_STATUS_SUCCESS ||
      cudaMalloc(&workspace, WORKSPACE) != cudaSuccess) {
    printf("lt_facts: could not set up cuBLASLt\n");
    return 1;
  }
  Suite *suite = suite_create("lt_facts");
  TCase *tc = tcase_create("facts");
  tcase_add_test(tc, relu_bit_rule_and_order);
  tcase_add_test(tc, bgradb_needs_transb_t);
  tcase_add_test(tc, bgrada_needs_transa_n);
  suite_add_tcase(suite, tc);
  int status = test_run_suite(suite, 1);
  cudaFree(workspace);
  cublasLtDestroy(lt);
  return status;
}
