/* epilogue_layer.c: the five cuBLASLt matmuls with epilogues (FP32) of one
 * training step's forward and backward passes through a hidden layer and the
 * output layer above it; no loss (dZ2, the loss gradient, is random) and no
 * update. Each output checked against plain CPU loops in double; random data,
 * fixed seed; docs/backprop.md derives the step. Exit 0: all PASS; 1: a FAIL
 * or an error; 77: no GPU. Build:
 *   nvcc -O2 -o epilogue_layer examples/epilogue_layer.c -lcublasLt
 * cuBLASLt is column-major: W[out][in] row-major is the column-major Wt (in,
 * out); activations (features, N) column-major are PyTorch's (N, features)
 * row-major. The ReLU mask has AUX_LD bits a column (a multiple of 128, >= m):
 * bit (i, j) is bit i % 8 of byte j * AUX_LD / 8 + i / 8, set where z >= 0
 * (measured: tests/test_lt_facts.c). */
#include <cublasLt.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
enum { I = 36, H = 52, O = 12, N = 33 }; /* inputs, hidden, outputs, batch */
static const int64_t AUX_LD = (H + 127) / 128 * 128; /* mask (bits, N) */
static const size_t WS = 32 << 20; /* workspace bytes, preference and matmul */
/* FP32 k-term sums err <= k 2^-24 sum|terms|: on this data <= 1.9e-5 (db2);
 * db1's reference sums the exact dZ1, so db1 adds dZ1's: 1.7 + 1.9 = 3.6e-5 */
#define TOL 1e-4 /* 2.8x db1's; on this data only, not a worst-case bound */
/* CHECK(call): a CUDA or cuBLASLt status != 0 prints where, what and why. */
static void ok(int status, const char *call, int line, int cuda) {
  if (status == 0) return;
  fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, line, call,
          cuda ? cudaGetErrorString(status) : cublasLtGetStatusString(status));
  exit(1);
}
#define CHECK(call)                                                            \
  ok(call, #call, __LINE__, _Generic((call), cudaError_t : 1, default : 0))
/* D (m, n) = op(A) (m, k) op(B) (k, n), then epilogue ep; dense (ld = rows);
 * bias: read [m], or the gradient written ([m]; BGRADB: [n]). Then, for the
 * check, c (m, n) = the same product on the CPU in double (+ bias if read). */
static void matmul(cublasLtHandle_t lt, void *ws, cublasLtEpilogue_t ep,
                   cublasOperation_t ta, cublasOperation_t tb, int m, int n,
                   int k, const float *a, const float *b, float *d, float *bias,
                   void *aux, double *c) {
  int ar = ta == CUBLAS_OP_T ? k : m, ac = ta == CUBLAS_OP_T ? m : k; /* A */
  int br = tb == CUBLAS_OP_T ? n : k, bc = tb == CUBLAS_OP_T ? k : n, found = 0;
  const float one = 1.0f, zero = 0.0f;
  cublasLtMatmulDesc_t desc = NULL;
  cublasLtMatrixLayout_t la = NULL, lb = NULL, ld = NULL;
  cublasLtMatmulPreference_t pref = NULL;
  cublasLtMatmulHeuristicResult_t best;
  CHECK(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
#define SET(attribute, value)                                                  \
  CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_##attribute, \
                                       &value, sizeof value))
  SET(TRANSA, ta);
  SET(TRANSB, tb);
  SET(EPILOGUE, ep);
  SET(BIAS_POINTER, bias); /* before the heuristic: it reads the alignment */
  SET(EPILOGUE_AUX_POINTER, aux); /* a bit-mask: no AUX_DATA_TYPE for ReLU */
  SET(EPILOGUE_AUX_LD, AUX_LD);
  CHECK(cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, ar, ac, ar));
  CHECK(cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, br, bc, br));
  CHECK(cublasLtMatrixLayoutCreate(&ld, CUDA_R_32F, m, n, m));
  CHECK(cublasLtMatmulPreferenceCreate(&pref));
  CHECK(cublasLtMatmulPreferenceSetAttribute(
      pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &WS, sizeof WS));
  CHECK(cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, ld, ld, pref, 1, &best,
                                       &found));
  if (found != 1) /* status SUCCESS, yet no algorithm: say which, then stop */
    fprintf(stderr, "epilogue %d: expected 1 algorithm, found %d\n", ep, found);
  CHECK(found == 1 ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_SUPPORTED);
  CHECK(cublasLtMatmul(lt, desc, &one, a, la, b, lb, &zero, d, ld, d, ld,
                       &best.algo, ws, WS, 0));
  CHECK(cudaDeviceSynchronize()); /* the CPU reads the outputs next */
  CHECK(cublasLtMatmulPreferenceDestroy(pref));
  CHECK(cublasLtMatrixLayoutDestroy(ld));
  CHECK(cublasLtMatrixLayoutDestroy(lb));
  CHECK(cublasLtMatrixLayoutDestroy(la));
  CHECK(cublasLtMatmulDescDestroy(desc));
  for (int j = 0; j < n; j++)
    for (int i = 0; i < m; i++) {
      c[i + j * m] = ep & CUBLASLT_EPILOGUE_BIAS ? bias[i] : 0.0; /* BIAS bit */
      for (int p = 0; p < k; p++)
        c[i + j * m] += (double)a[ta == CUBLAS_OP_T ? p + i * k : i + p * m] *
                        b[tb == CUBLAS_OP_T ? j + p * n : p + j * k];
    }
}
/* Prints PASS if every |gpu - cpu| / (1 + |cpu|) <= TOL, else FAIL (1). */
static int check(const char *name, const float *gpu, const double *cpu, int n) {
  double worst = 0.0;
  for (int e = 0; e < n; e++) {
    double err = fabs(gpu[e] - cpu[e]) / (1.0 + fabs(cpu[e]));
    worst = isnan(err) || err > worst ? err : worst; /* a NaN stays */
  }
  printf("%s %-6s max err %.1e\n", worst <= TOL ? "PASS" : "FAIL", name, worst);
  return !(worst <= TOL);
}
static int mask_bit(const unsigned char *mask, int i, int j) {
  return (mask[j * (AUX_LD / 8) + i / 8] >> (i % 8)) & 1;
}
/* count floats, uniform in [-0.5, 0.5], in managed memory (CPU and GPU). */
static void *alloc(int count) {
  float *p = NULL;
  CHECK(cudaMallocManaged((void **)&p, sizeof *p * count, cudaMemAttachGlobal));
  for (int e = 0; e < count; e++)
    p[e] = rand() / (double)RAND_MAX - 0.5;
  return p;
}

int main(void) {
  int devices = 0, fail = 0, flips = 0;
  cudaError_t found = cudaGetDeviceCount(&devices);
  if (found != cudaSuccess || devices == 0) { /* 77: ctest's "skipped" */
    printf("SKIP epilogue_layer: no CUDA GPU (%s)\n",
           found != cudaSuccess ? cudaGetErrorString(found) : "none found");
    return 77;
  }
  srand(21); /* I, H, O multiples of 4: every column 16-byte aligned */
  float *x = alloc(I * N), *w1t = alloc(I * H), *b1 = alloc(H), *b2 = alloc(O);
  float *w2t = alloc(H * O), *dz2 = alloc(O * N), *y1 = alloc(H * N);
  float *lg = alloc(O * N), *dw2t = alloc(H * O), *db2 = alloc(O);
  float *dz1 = alloc(H * N), *db1 = alloc(H), *dw1t = alloc(I * H);
  unsigned char *mask = alloc(AUX_LD / 32 * N);        /* AUX_LD / 8 N bytes */
  double c[I * H], db1_cpu[H] = {0}, db2_cpu[O] = {0}; /* c: every output */
  _Static_assert(I * H >= H * N && I * H >= O * N && I * H >= H * O, "grow c");
  cublasLtHandle_t lt = NULL;
  void *ws = NULL;
  CHECK(cudaMalloc(&ws, WS));
  CHECK(cublasLtCreate(&lt));
  /* Y1 (H, N) = ReLU(Z1), Z1 = W1 (H, I) X (I, N) + b1; mask bit = Z1 >= 0 */
  matmul(lt, ws, CUBLASLT_EPILOGUE_RELU_AUX_BIAS, CUBLAS_OP_T, CUBLAS_OP_N, H,
         N, I, w1t, x, y1, b1, mask, c);
  for (int e = 0; e < H * N; e++) { /* (i, j) = (e % H, e / H); near 0: any */
    flips += fabs(c[e]) > TOL && mask_bit(mask, e % H, e / H) != (c[e] >= 0);
    c[e] = c[e] >= 0 ? c[e] : 0.0;
  }
  fail += check("Y1", y1, c, H * N) + (flips != 0);
  printf("%s mask   %d bits wrong (Z1 >= 0)\n", flips ? "FAIL" : "PASS", flips);
  /* logits (O, N) = W2 (O, H) Y1 (H, N) + b2 */
  matmul(lt, ws, CUBLASLT_EPILOGUE_BIAS, CUBLAS_OP_T, CUBLAS_OP_N, O, N, H, w2t,
         y1, lg, b2, NULL, c);
  fail += check("logits", lg, c, O * N);
  /* dW2t (H, O) = Y1 (H, N) dZ2^T (N, O); db2 = row sums (BGRADB: TRANSB T) */
  matmul(lt, ws, CUBLASLT_EPILOGUE_BGRADB, CUBLAS_OP_N, CUBLAS_OP_T, H, O, N,
         y1, dz2, dw2t, db2, NULL, c);
  for (int e = 0; e < O * N; e++)
    db2_cpu[e % O] += dz2[e];
  fail += check("dW2t", dw2t, c, H * O) + check("db2", db2, db2_cpu, O);
  /* dZ1 (H, N) = W2^T (H, O) dZ2 (O, N), masked; db1 (H) = dZ1's row sums */
  matmul(lt, ws, CUBLASLT_EPILOGUE_DRELU_BGRAD, CUBLAS_OP_N, CUBLAS_OP_N, H, N,
         O, w2t, dz2, dz1, db1, mask, c);
  for (int e = 0; e < H * N; e++) /* masked dZ1, and its row sums */
    db1_cpu[e % H] += (c[e] *= mask_bit(mask, e % H, e / H));
  fail += check("dZ1", dz1, c, H * N) + check("db1", db1, db1_cpu, H);
  /* dW1t (I, H) = X (I, N) dZ1^T (N, H) */
  matmul(lt, ws, CUBLASLT_EPILOGUE_DEFAULT, CUBLAS_OP_N, CUBLAS_OP_T, I, H, N,
         x, dz1, dw1t, NULL, NULL, c);
  fail += check("dW1t", dw1t, c, I * H);
  CHECK(cublasLtDestroy(lt));
  CHECK(cudaDeviceReset()); /* frees every allocation above */
  return fail != 0;
}
