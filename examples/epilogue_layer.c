/* epilogue_layer.c: one hidden layer and the output layer above it, one
 * training step's five cuBLASLt calls with epilogues (FP32 throughout),
 * each output checked against a plain CPU loop. Random data, fixed seed, odd
 * sizes; the loss gradient dlogits is given (random), not a softmax. No
 * project headers: read this before gpu/ (docs/backprop.md derives it all).
 *   nvcc -O2 -o epilogue_layer examples/epilogue_layer.c -lcublasLt
 * Exit 0: every quantity PASS; 1: a FAIL or a CUDA/cuBLASLt error; 77: no GPU.
 *
 * cuBLASLt is column-major: D (m, n) = op(A) (m, k) op(B) (k, n), then the
 * epilogue. Weights W[out][in] row-major are the column-major Wt (in, out);
 * activations are (features, N), one column per sample (PyTorch's (N,
 * features) row-major memory). Each matrix is stored with ld = rows rounded up
 * to 8 (every column 16-byte aligned, as fused kernels like; cuBLASLt reads
 * only the real m, n, k), which is W[out][ld] in row-major terms. */
#include <cublasLt.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum { IN = 37, HID = 50, OUT = 10, N = 33 };
/* The ReLU mask's leading dimension in bits (CUBLASLT_MATMUL_DESC_EPILOGUE_
 * AUX_LD: a multiple of 128, >= the rows of D); the mask is (AUX_LD bits, N),
 * AUX_LD / 8 bytes a column; bit (h, j) is bit h % 8 of byte j * AUX_LD / 8 +
 * h / 8 (measured: tests/test_lt_facts.c). */
enum { AUX_LD = (HID + 127) / 128 * 128 };
#define WORKSPACE ((size_t)32 << 20) /* to the preference and the matmul */
/* Pass: |gpu - cpu| <= TOL * (1 + |cpu|). The CPU sums the same FP32 inputs
 * in double; an FP32 sum of k terms is off by at most k * 2^-24 * sum|terms|
 * in any order: under 4e-5 for every output here (Y1's error carried into
 * logits and dW2t adds less). The mistakes this catches (a wrong transpose,
 * index, bias or mask bit) move values of size 0.1 to 1. */
#define TOL 1e-4

/* Any CUDA or cuBLASLt call (both say success with 0): on failure, print the
 * call and the library's status string and exit. _Generic picks the string
 * function by the call's type (without running the call again). */
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

/* A (rows, cols) column-major matrix on the host (h) and the GPU (d). */
typedef struct {
  int rows, cols, ld;
  float *h, *d;
} Mat;

/* Entries uniform in [-scale, scale] (padding rows 0), copied to the GPU. */
static Mat mat_create(int rows, int cols, double scale) {
  Mat a = {rows, cols, (rows + 7) / 8 * 8, NULL, NULL};
  size_t bytes = sizeof(float) * a.ld * cols;
  if (!(a.h = calloc(1, bytes))) {
    fprintf(stderr, "epilogue_layer: no host memory for %zu bytes\n", bytes);
    exit(1);
  }
  for (int j = 0; j < cols; j++)
    for (int i = 0; i < rows; i++)
      a.h[i + j * a.ld] = (float)(scale * (2.0 * rand() / RAND_MAX - 1.0));
  CHECK(cudaMalloc((void **)&a.d, bytes));
  CHECK(cudaMemcpy(a.d, a.h, bytes, cudaMemcpyHostToDevice));
  return a;
}
#define AT(a, i, j) ((double)(a).h[(i) + (j) * (a).ld])

/* D (m, n) = op(A) op(B), then `epilogue`; alpha 1, beta 0 (D overwritten).
 * bias: read [m] (BIAS, RELU_AUX_BIAS) or the bias gradient written ([m] for
 * DRELU_BGRAD, [n] for BGRADB); aux: the ReLU bit-mask, aux_ld bits/column. */
static void matmul(cublasLtHandle_t lt, void *workspace,
                   cublasLtEpilogue_t epilogue, const Mat *a,
                   cublasOperation_t ta, const Mat *b, cublasOperation_t tb,
                   Mat *d, float *bias, void *aux, int64_t aux_ld) {
  cublasLtMatmulDesc_t desc = NULL;
  cublasLtMatrixLayout_t la = NULL, lb = NULL, ld = NULL;
  cublasLtMatmulPreference_t pref = NULL;
  cublasLtMatmulHeuristicResult_t best;
  int found = 0;
  size_t ws = WORKSPACE;
  const float alpha = 1.0f, beta = 0.0f;
  CHECK(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
  CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta,
                                       sizeof ta));
  CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb,
                                       sizeof tb));
  CHECK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE,
                                       &epilogue, sizeof epilogue));
  /* Real pointers before the heuristic: it reads their alignment. BIAS_DATA_
   * TYPE unset: the bias is D's type (FP32). AUX_DATA_TYPE stays unset: the
   * ReLU aux is a bit-mask, not a matrix of a data type. */
  if (bias)
    CHECK(cublasLtMatmulDescSetAttribute(
        desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias));
  if (aux) {
    CHECK(cublasLtMatmulDescSetAttribute(
        desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &aux, sizeof aux));
    CHECK(cublasLtMatmulDescSetAttribute(
        desc, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &aux_ld, sizeof aux_ld));
  }
  /* Layouts describe the matrices as stored; the ops are in the descriptor. */
  CHECK(cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, a->rows, a->cols, a->ld));
  CHECK(cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, b->rows, b->cols, b->ld));
  CHECK(cublasLtMatrixLayoutCreate(&ld, CUDA_R_32F, d->rows, d->cols, d->ld));
  CHECK(cublasLtMatmulPreferenceCreate(&pref));
  CHECK(cublasLtMatmulPreferenceSetAttribute(
      pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
  CHECK(cublasLtMatmulAlgoGetHeuristic(lt, desc, la, lb, ld, ld, pref, 1, &best,
                                       &found));
  if (found == 0) {
    fprintf(stderr, "epilogue %d: no algorithm for D (%d, %d)\n", (int)epilogue,
            d->rows, d->cols);
    exit(1);
  }
  CHECK(cublasLtMatmul(lt, desc, &alpha, a->d, la, b->d, lb, &beta, d->d, ld,
                       d->d, ld, &best.algo, workspace, WORKSPACE, 0));
  CHECK(cublasLtMatmulPreferenceDestroy(pref));
  CHECK(cublasLtMatrixLayoutDestroy(ld));
  CHECK(cublasLtMatrixLayoutDestroy(lb));
  CHECK(cublasLtMatrixLayoutDestroy(la));
  CHECK(cublasLtMatmulDescDestroy(desc));
}

/* Downloads `gpu` and prints PASS or FAIL against ref (rows, cols) dense;
 * returns 1 on FAIL. */
static int compare(const char *name, Mat *gpu, const double *ref) {
  size_t bytes = sizeof(float) * gpu->ld * gpu->cols;
  double worst = 0.0;
  int bad = 0;
  CHECK(cudaMemcpy(gpu->h, gpu->d, bytes, cudaMemcpyDeviceToHost));
  for (int j = 0; j < gpu->cols; j++)
    for (int i = 0; i < gpu->rows; i++) {
      double r = ref[i + j * gpu->rows], e = fabs(AT(*gpu, i, j) - r);
      worst = e > worst ? e : worst;
      bad += !(e <= TOL * (1.0 + fabs(r)));
    }
  printf("%s %-6s (%d, %d): max |gpu - cpu| = %.2e\n", bad ? "FAIL" : "PASS",
         name, gpu->rows, gpu->cols, worst);
  return bad != 0;
}

int main(void) {
  int devices = 0;
  cudaError_t probe = cudaGetDeviceCount(&devices);
  if (probe != cudaSuccess || devices == 0) {
    printf("SKIP epilogue_layer: no CUDA GPU (cudaGetDeviceCount: %s)\n",
           probe != cudaSuccess ? cudaGetErrorString(probe) : "0 devices");
    return 77;
  }
  srand(21);
  Mat x = mat_create(IN, N, 1.0);               /* X (IN, N): the batch */
  Mat w1 = mat_create(IN, HID, 1 / sqrt(IN));   /* W1t (IN, HID) */
  Mat b1 = mat_create(HID, 1, 0.5);             /* b1 (HID, 1) */
  Mat w2 = mat_create(HID, OUT, 1 / sqrt(HID)); /* W2t (HID, OUT) */
  Mat b2 = mat_create(OUT, 1, 0.5);             /* b2 (OUT, 1) */
  Mat g = mat_create(OUT, N, 1.0);   /* dlogits (OUT, N), given: no softmax */
  Mat y1 = mat_create(HID, N, 0);    /* Y1 (HID, N) */
  Mat lg = mat_create(OUT, N, 0);    /* logits (OUT, N) */
  Mat dw2 = mat_create(HID, OUT, 0); /* dW2t (HID, OUT) */
  Mat db2 = mat_create(OUT, 1, 0);   /* db2 (OUT, 1) */
  Mat dz1 = mat_create(HID, N, 0);   /* dZ1 (HID, N) */
  Mat db1 = mat_create(HID, 1, 0);   /* db1 (HID, 1) */
  Mat dw1 = mat_create(IN, HID, 0);  /* dW1t (IN, HID) */
  unsigned char mask[AUX_LD / 8 * N], *d_mask = NULL; /* (AUX_LD bits, N) */
  cublasLtHandle_t lt = NULL;
  void *ws = NULL;
  CHECK(cudaMalloc((void **)&d_mask, sizeof mask));
  CHECK(cudaMemset(d_mask, 0, sizeof mask));
  CHECK(cudaMalloc(&ws, WORKSPACE));
  CHECK(cublasLtCreate(&lt));
  /* 1. Y1 (HID, N) = ReLU(W1t^T X + b1), mask bit (h, j) = (Y1's pre-activation
   * >= 0): m = HID, n = N, k = IN. */
  matmul(lt, ws, CUBLASLT_EPILOGUE_RELU_AUX_BIAS, &w1, CUBLAS_OP_T, &x,
         CUBLAS_OP_N, &y1, b1.d, d_mask, AUX_LD);
  /* 2. logits (OUT, N) = W2t^T Y1 + b2: m = OUT, n = N, k = HID. */
  matmul(lt, ws, CUBLASLT_EPILOGUE_BIAS, &w2, CUBLAS_OP_T, &y1, CUBLAS_OP_N,
         &lg, b2.d, NULL, 0);
  /* 3. dW2t (HID, OUT) = Y1 dlogits^T; db2[OUT] = sums of op(B) (N, OUT) over
   * k, i.e. dlogits' row sums (BGRADB needs TRANSB = T): m = HID, n = OUT,
   * k = N. */
  matmul(lt, ws, CUBLASLT_EPILOGUE_BGRADB, &y1, CUBLAS_OP_N, &g, CUBLAS_OP_T,
         &dw2, db2.d, NULL, 0);
  /* 4. dZ1 (HID, N) = W2t dlogits where the mask bit is 1, else 0; db1[HID] =
   * dZ1's row sums (of the masked values): m = HID, n = N, k = OUT. */
  matmul(lt, ws, CUBLASLT_EPILOGUE_DRELU_BGRAD, &w2, CUBLAS_OP_N, &g,
         CUBLAS_OP_N, &dz1, db1.d, d_mask, AUX_LD);
  /* 5. dW1t (IN, HID) = X dZ1^T (db1 came from 4): m = IN, n = HID, k = N. */
  matmul(lt, ws, CUBLASLT_EPILOGUE_DEFAULT, &x, CUBLAS_OP_N, &dz1, CUBLAS_OP_T,
         &dw1, NULL, NULL, 0);
  CHECK(cudaMemcpy(mask, d_mask, sizeof mask, cudaMemcpyDeviceToHost));

  /* The same step in plain loops, in double; each ref_ has the shape of the
   * GPU matrix it checks, dense (ld = rows). The backward loops read the GPU's
   * mask bits, so a pre-activation within rounding of 0 (where either bit is
   * right) cannot fail the gradients. */
  double ref_y1[HID * N], ref_dz1[HID * N], ref_lg[OUT * N];
  double ref_dw2[HID * OUT] = {0}, ref_dw1[IN * HID] = {0};
  double ref_db2[OUT] = {0}, ref_db1[HID] = {0};
  int flips = 0, near = 0;
  for (int j = 0; j < N; j++) {
    for (int h = 0; h < HID; h++) {
      double z = AT(b1, h, 0), t = 0.0;
      int bit = mask[j * AUX_LD / 8 + h / 8] >> (h % 8) & 1;
      for (int i = 0; i < IN; i++)
        z += AT(w1, i, h) * AT(x, i, j);
      for (int o = 0; o < OUT; o++)
        t += AT(w2, h, o) * AT(g, o, j);
      near += fabs(z) <= TOL;
      flips += fabs(z) > TOL && bit != (z >= 0);
      ref_y1[h + j * HID] = z >= 0 ? z : 0.0;
      ref_dz1[h + j * HID] = bit ? t : 0.0;
      ref_db1[h] += ref_dz1[h + j * HID];
      for (int i = 0; i < IN; i++)
        ref_dw1[i + h * IN] += AT(x, i, j) * ref_dz1[h + j * HID];
    }
    for (int o = 0; o < OUT; o++) {
      ref_lg[o + j * OUT] = AT(b2, o, 0);
      ref_db2[o] += AT(g, o, j);
      for (int h = 0; h < HID; h++) {
        ref_lg[o + j * OUT] += AT(w2, h, o) * ref_y1[h + j * HID];
        ref_dw2[h + o * HID] += ref_y1[h + j * HID] * AT(g, o, j);
      }
    }
  }
  printf("%s mask   (%d, %d): %d bits differ from z >= 0 (%d z within %g of 0 "
         "not compared)\n",
         flips ? "FAIL" : "PASS", HID, N, flips, near, TOL);
  int fail = flips != 0;
  fail |= compare("Y1", &y1, ref_y1) | compare("logits", &lg, ref_lg);
  fail |= compare("dW2t", &dw2, ref_dw2) | compare("db2", &db2, ref_db2);
  fail |= compare("dZ1", &dz1, ref_dz1) | compare("db1", &db1, ref_db1);
  fail |= compare("dW1t", &dw1, ref_dw1);
  Mat *all[] = {&x,  &w1,  &b1,  &w2,  &b2,  &g,  &y1,
                &lg, &dw2, &db2, &dz1, &db1, &dw1};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
    free(all[i]->h);
    CHECK(cudaFree(all[i]->d));
  }
  CHECK(cudaFree(d_mask));
  CHECK(cudaFree(ws));
  CHECK(cublasLtDestroy(lt));
  printf("%s\n", fail ? "FAIL" : "PASS: all eight quantities");
  return fail;
}
