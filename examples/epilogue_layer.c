/* epilogue_layer.c: one training step of a hidden layer and the output layer
 * above it as five cuBLASLt matmuls with epilogues (FP32), each checked against
 * plain CPU loops; random data, fixed seed (dlogits is random, not a softmax).
 * No project headers; docs/backprop.md derives it all. Build, and exit codes:
 *   nvcc -O2 -o epilogue_layer examples/epilogue_layer.c -lcublasLt
 * 0: every quantity PASS; 1: a FAIL or a CUDA/cuBLASLt error; 77: no GPU.
 * cuBLASLt is column-major: D (m, n) = op(A) (m, k) op(B) (k, n), then the
 * epilogue. Weights W[out][in] row-major are the column-major Wt (in, out);
 * activations (features, N) column-major are PyTorch's (N, features) row-major.
 * Documented in cublasLt.h: the ReLU aux is a bit-mask, AUX_LD in bits (a
 * multiple of 128, >= m); BGRADB sums op(B) over k. Measured in
 * tests/test_lt_facts.c: mask bit (i, j) is bit i % 8 of byte j AUX_LD / 8 +
 * i / 8, set where z >= 0; BGRADB needs TRANSB = T (N is refused). */
#include <cublasLt.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

enum { IN = 37, HID = 50, OUT = 10, N = 33 };
static const int64_t AUX_LD = (HID + 127) / 128 * 128; /* mask (bits, N) */
static const size_t WORKSPACE = 32 << 20; /* to the preference and matmul */
/* Pass: |gpu - cpu| <= TOL (1 + |cpu|). The CPU sums the call's own FP32 inputs
 * in double; an FP32 sum of k terms is off by at most k 2^-24 sum|terms| in
 * any order: at most 3.9e-5 here (db2). A wrong transpose, index, bias or mask
 * bit moves values of size 0.1 to 1. */
#define TOL 1e-4

/* Any CUDA or cuBLASLt call: on failure, print it with the library's status
 * string (_Generic picks by the call's type; it does not run it) and exit. */
#define CHECK(call)                                                            \
  do {                                                                         \
    int s_ = (int)(call);                                                      \
    if (s_ != 0) {                                                             \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,            \
              _Generic((call), cudaError_t                                     \
                       : cudaGetErrorString, default                           \
                       : cublasLtGetStatusString)(s_));                        \
      exit(1);                                                                 \
    }                                                                          \
  } while (0)

/* (rows, cols) column-major, ld = rows rounded up to 8 (16-byte columns), in
 * managed memory: p is the CPU's and the GPU's pointer. */
typedef struct {
  const char *name;
  int rows, cols, ld;
  float *p;
} Mat;
#define AT(a, i, j) ((double)(a)->p[(i) + (j) * (a)->ld])

/* Entries uniform in [-scale, scale], padding rows 0. */
static Mat mat(const char *name, int rows, int cols, double scale) {
  Mat a = {name, rows, cols, (rows + 7) / 8 * 8, NULL};
  CHECK(cudaMallocManaged((void **)&a.p, sizeof(float) * a.ld * cols,
                          cudaMemAttachGlobal));
  for (int i = 0; i < a.ld * cols; i++)
    a.p[i] = i % a.ld < rows ? scale * (2.0 * rand() / RAND_MAX - 1.0) : 0.0;
  return a;
}

/* D (m, n) = op(A) op(B), then `ep`; alpha 1, beta 0 (D overwritten). bias:
 * read [m] (BIAS, RELU_AUX_BIAS) or the bias gradient written ([m] for
 * DRELU_BGRAD, [n] for BGRADB); aux: the ReLU bit-mask (AUX_LD bits, n). */
static void matmul(cublasLtHandle_t lt, void *workspace, cublasLtEpilogue_t ep,
                   const Mat *a, cublasOperation_t ta, const Mat *b,
                   cublasOperation_t tb, Mat *d, Mat *bias, void *aux) {
  cublasLtMatmulDesc_t desc = NULL;
  cublasLtMatrixLayout_t la = NULL, lb = NULL, ld = NULL;
  cublasLtMatmulPreference_t pref = NULL;
  cublasLtMatmulHeuristicResult_t best;
  int found = 0;
  const float alpha = 1.0f, beta = 0.0f;
  CHECK(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta,
                                       sizeof ta));
  CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb,
                                       sizeof tb));
  CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &ep,
                                       sizeof ep));
  /* Real pointers before the heuristic (it reads their alignment). The bias is
   * D's type (FP32); no AUX_DATA_TYPE: the ReLU aux is a bit-mask. */
  if (bias)
    CHECK(cublasLtMatmulDescSetAttribute(
        desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias->p, sizeof bias->p));
  if (aux) {
    CHECK(cublasLtMatmulDescSetAttribute(
        desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &aux, sizeof aux));
    CHECK(cublasLtMatmulDescSetAttribute(
        desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &AUX_LD, sizeof AUX_LD));
  }
  /* Layouts describe the matrices as stored; the ops are in the descriptor. */
  CHECK(cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, a->rows, a->cols, a->ld));
  CHECK(cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, b->rows, b->cols, b->ld));
  CHECK(cublasLtMatrixLayoutCreate(&ld, CUDA_R_32F, d->rows, d->cols, d->ld));
  CHECK(cublasLtMatmulPreferenceCreate(&pref));
  CHECK(cublasLtMatmulPreferenceSetAttribute(
      pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &WORKSPACE,
      sizeof WORKSPACE));
  CHECK(cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, ld, ld, pref, 1, &best,
                                       &found));
  CHECK(found == 1 ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_SUPPORTED);
  CHECK(cublasLtMatmul(lt, desc, &alpha, a->p, la, b->p, lb, &beta, d->p, ld,
                       d->p, ld, &best.algo, workspace, WORKSPACE, 0));
  CHECK(cublasLtMatmulPreferenceDestroy(pref));
  CHECK(cublasLtMatrixLayoutDestroy(ld));
  CHECK(cublasLtMatrixLayoutDestroy(lb));
  CHECK(cublasLtMatrixLayoutDestroy(la));
  CHECK(cublasLtMatmulDescDestroy(desc));
}

/* Prints PASS or FAIL for gpu against ref (rows, cols) dense; 1 on FAIL. */
static int compare(const Mat *gpu, const double *ref) {
  double worst = 0.0;
  int bad = 0;
  for (int e = 0; e < gpu->rows * gpu->cols; e++) {
    double err = fabs(AT(gpu, e % gpu->rows, e / gpu->rows) - ref[e]);
    worst = err > worst ? err : worst;
    bad += !(err <= TOL * (1.0 + fabs(ref[e])));
  }
  printf("%s %-7s (%d, %d): max |gpu - cpu| = %.2e\n", bad ? "FAIL" : "PASS",
         gpu->name, gpu->rows, gpu->cols, worst);
  return bad != 0;
}

/* matmul, then the same call as plain loops in double on its own inputs and
 * the GPU's mask bits (where |z| <= TOL either bit is right), each output
 * compared; returns the number of FAILs. */
static int run(cublasLtHandle_t lt, void *ws, cublasLtEpilogue_t ep,
               const Mat *a, cublasOperation_t ta, const Mat *b,
               cublasOperation_t tb, Mat *d, Mat *bias, unsigned char *mask) {
  int relu = ep == CUBLASLT_EPILOGUE_RELU_AUX_BIAS, flips = 0, fails;
  int bgradb = ep == CUBLASLT_EPILOGUE_BGRADB, drelu = mask && !relu;
  double ref[IN * HID] = {0}, grad[HID] = {0};
  matmul(lt, ws, ep, a, ta, b, tb, d, bias, mask);
  CHECK(cudaDeviceSynchronize()); /* before the CPU reads managed memory */
  for (int e = 0; e < d->rows * d->cols; e++) {
    int i = e % d->rows, j = e / d->rows;
    int bit = !mask || (mask[j * AUX_LD / 8 + i / 8] >> i % 8 & 1);
    double z = bias && !bgradb && !drelu ? bias->p[i] : 0.0;
    for (int p = 0; p < (ta == CUBLAS_OP_T ? a->rows : a->cols); p++) {
      double bp = tb == CUBLAS_OP_T ? AT(b, j, p) : AT(b, p, j);
      z += (ta == CUBLAS_OP_T ? AT(a, p, i) : AT(a, i, p)) * bp;
      grad[j] += bgradb && i == 0 ? bp : 0.0; /* BGRADB: op(B)'s sums over k */
    }
    flips += relu && fabs(z) > TOL && bit != (z >= 0);
    ref[e] = (relu ? z >= 0 : bit) ? z : 0.0;
    grad[i] += drelu ? ref[e] : 0.0; /* DRELU_BGRAD: D's row sums */
  }
  fails = compare(d, ref);
  if (relu)
    printf("%s mask    (%d, %d): %d bits differ from z >= 0 where |z| > TOL\n",
           flips ? "FAIL" : "PASS", d->rows, d->cols, flips);
  if (bgradb || drelu) fails += compare(bias, grad);
  return fails + (flips != 0);
}

int main(void) {
  int devices = 0, fail = 0;
  cudaError_t probe = cudaGetDeviceCount(&devices);
  if (probe != cudaSuccess || devices == 0) {
    printf("SKIP epilogue_layer: no CUDA GPU (cudaGetDeviceCount: %s)\n",
           probe != cudaSuccess ? cudaGetErrorString(probe) : "0 devices");
    return 77;
  }
  srand(21);
  Mat x = mat("X", IN, N, 1.0), w1 = mat("W1t", IN, HID, 1 / sqrt(IN));
  Mat b1 = mat("b1", HID, 1, 0.5), w2 = mat("W2t", HID, OUT, 1 / sqrt(HID));
  Mat b2 = mat("b2", OUT, 1, 0.5), g = mat("dlogits", OUT, N, 1.0);
  Mat y1 = mat("Y1", HID, N, 0), lg = mat("logits", OUT, N, 0);
  Mat dw2 = mat("dW2t", HID, OUT, 0), db2 = mat("db2", OUT, 1, 0);
  Mat dz1 = mat("dZ1", HID, N, 0), db1 = mat("db1", HID, 1, 0);
  Mat dw1 = mat("dW1t", IN, HID, 0);
  unsigned char *mask = NULL; /* the ReLU bit-mask, (AUX_LD bits, N) */
  cublasLtHandle_t lt = NULL;
  void *ws = NULL;
  CHECK(cudaMallocManaged((void **)&mask, AUX_LD / 8 * N, cudaMemAttachGlobal));
  CHECK(cudaMalloc(&ws, WORKSPACE));
  CHECK(cublasLtCreate(&lt));
  /* Y1 (HID, N) = ReLU(W1t^T X + b1), mask bit = (z >= 0); m, n, k = HID,
   * N, IN */
  fail += run(lt, ws, CUBLASLT_EPILOGUE_RELU_AUX_BIAS, &w1, CUBLAS_OP_T, &x,
              CUBLAS_OP_N, &y1, &b1, mask);
  /* logits (OUT, N) = W2t^T Y1 + b2; m, n, k = OUT, N, HID */
  fail += run(lt, ws, CUBLASLT_EPILOGUE_BIAS, &w2, CUBLAS_OP_T, &y1,
              CUBLAS_OP_N, &lg, &b2, NULL);
  /* dW2t (HID, OUT) = Y1 dlogits^T; db2 = dlogits' row sums = op(B)'s sums
   * over k (BGRADB sums op(B), hence TRANSB = T); m, n, k = HID, OUT, N */
  fail += run(lt, ws, CUBLASLT_EPILOGUE_BGRADB, &y1, CUBLAS_OP_N, &g,
              CUBLAS_OP_T, &dw2, &db2, NULL);
  /* dZ1 (HID, N) = W2t dlogits where the mask bit is 1, else 0; db1 = dZ1's
   * row sums; m, n, k = HID, N, OUT */
  fail += run(lt, ws, CUBLASLT_EPILOGUE_DRELU_BGRAD, &w2, CUBLAS_OP_N, &g,
              CUBLAS_OP_N, &dz1, &db1, mask);
  /* dW1t (IN, HID) = X dZ1^T (db1 came with dZ1); m, n, k = IN, HID, N */
  fail += run(lt, ws, CUBLASLT_EPILOGUE_DEFAULT, &x, CUBLAS_OP_N, &dz1,
              CUBLAS_OP_T, &dw1, NULL, NULL);
  CHECK(cublasLtDestroy(lt));
  CHECK(cudaDeviceReset()); /* frees every allocation above */
  printf("%s\n", fail ? "FAIL" : "PASS: all eight quantities");
  return fail != 0;
}
