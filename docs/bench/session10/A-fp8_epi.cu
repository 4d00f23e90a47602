// Probe (session 10, not shipped): (1) which FP8 epilogues give a backward data GEMM its E5M2 D:
// DRELU (aux bit-mask) with D_SCALE and AMAX_D, against DEFAULT with BF16 D (today's step);
// (2) forward 1 of 784-4096-4096-10 (m=n=4096, k=784, E4M3 x E4M3): every heuristic candidate
// with RELU_AUX_BIAS and E4M3 D + AMAX_D, against BF16 D and against DEFAULT. Median of 21 timed
// launches after 5 warm-up, CUDA events, random finite codes.
#include <cublasLt.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cstdio>
#include <cstdint>
#include <vector>
#include <algorithm>
#define CK(x) do { cudaError_t e_ = (x); if (e_) { printf("cuda %s line %d\n", cudaGetErrorString(e_), __LINE__); return 1; } } while (0)
__global__ void fill8(uint8_t *p, size_t n, int e5) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    uint32_t h = (uint32_t)i * 2654435761u; h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
    float x = ((h & 0xffff) / 65536.0f - 0.5f) * 2.0f;
    p[i] = e5 ? __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E5M2) : __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3);
  }
}
__global__ void fillu(uint8_t *p, size_t n) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    uint32_t h = (uint32_t)i * 2246822519u; h ^= h >> 15; p[i] = (uint8_t)h;
  }
}
struct Bufs { void *a, *b, *c, *d, *aux, *bias; float *scales; void *ws; size_t ws_size; };
static float time_it(cublasLtHandle_t lt, cublasLtMatmulDesc_t op, cublasLtMatrixLayout_t la, cublasLtMatrixLayout_t lb,
                     cublasLtMatrixLayout_t lc, cublasLtMatrixLayout_t ld, const cublasLtMatmulAlgo_t *algo, Bufs &B, int *st) {
  float one = 1, zero = 0;
  cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
  std::vector<float> t;
  for (int i = 0; i < 26; i++) {
    cudaEventRecord(e0);
    cublasStatus_t s = cublasLtMatmul(lt, op, &one, B.a, la, B.b, lb, &zero, B.c, lc, B.d, ld, algo, B.ws, B.ws_size, 0);
    cudaEventRecord(e1); cudaEventSynchronize(e1);
    if (s) { *st = s; return -1; }
    float ms; cudaEventElapsedTime(&ms, e0, e1); if (i >= 5) t.push_back(ms * 1000);
  }
  *st = 0; std::sort(t.begin(), t.end()); return t[t.size() / 2];
}
// One configuration: m, n, k; A E4M3 (k x m, transposed), B (k x n) of b_type; D of d_type, C BF16.
static int run(cublasLtHandle_t lt, const char *name, int m, int n, int k, cudaDataType b_type, cudaDataType d_type,
               cublasLtEpilogue_t epi, int all, Bufs &B) {
  cublasLtMatmulDesc_t op; cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
  cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta);
  cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb);
  cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi);
  float *sa = B.scales, *sb = B.scales + 4, *sd = B.scales + 8, *amax = B.scales + 12;
  cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &sa, sizeof sa);
  cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &sb, sizeof sb);
  int d8 = d_type == CUDA_R_8F_E4M3 || d_type == CUDA_R_8F_E5M2;
  if (d8) {
    cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_D_SCALE_POINTER, &sd, sizeof sd);
    cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_AMAX_D_POINTER, &amax, sizeof amax);
  }
  cudaDataType bf = CUDA_R_16BF;
  if (epi & CUBLASLT_EPILOGUE_BIAS) {
    cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &B.bias, sizeof B.bias);
    cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bf, sizeof bf);
  }
  if (epi == CUBLASLT_EPILOGUE_RELU_AUX_BIAS || epi == CUBLASLT_EPILOGUE_DRELU || epi == CUBLASLT_EPILOGUE_DRELU_BGRAD) {
    int64_t ald = m;
    cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER, &B.aux, sizeof B.aux);
    cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD, &ald, sizeof ald);
  }
  if (epi == CUBLASLT_EPILOGUE_DRELU_BGRAD) {
    cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &B.bias, sizeof B.bias);
    cudaDataType f32 = CUDA_R_32F;
    cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &f32, sizeof f32);
  }
  cublasLtMatrixLayout_t la, lb, lc, ld;
  cublasLtMatrixLayoutCreate(&la, CUDA_R_8F_E4M3, k, m, k);
  cublasLtMatrixLayoutCreate(&lb, b_type, k, n, k);
  cublasLtMatrixLayoutCreate(&lc, CUDA_R_16BF, m, n, m);
  cublasLtMatrixLayoutCreate(&ld, d_type, m, n, m);
  cublasLtMatmulPreference_t pref; cublasLtMatmulPreferenceCreate(&pref);
  cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &B.ws_size, sizeof B.ws_size);
  cublasLtMatmulHeuristicResult_t h[32]; int got = 0;
  cublasStatus_t s = cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, ld, pref, all ? 32 : 1, h, &got);
  printf("%-44s m=%d n=%d k=%d: heuristic status %d, %d candidates\n", name, m, n, k, (int)s, got);
  for (int i = 0; i < got && s == 0; i++) {
    int st; float us = time_it(lt, op, la, lb, lc, ld, &h[i].algo, B, &st);
    int id = 0, tile = 0, stages = 0, splitk = 0; size_t w;
    cublasLtMatmulAlgoConfigGetAttribute(&h[i].algo, CUBLASLT_ALGO_CONFIG_ID, &id, sizeof id, &w);
    cublasLtMatmulAlgoConfigGetAttribute(&h[i].algo, CUBLASLT_ALGO_CONFIG_TILE_ID, &tile, sizeof tile, &w);
    cublasLtMatmulAlgoConfigGetAttribute(&h[i].algo, CUBLASLT_ALGO_CONFIG_STAGES_ID, &stages, sizeof stages, &w);
    cublasLtMatmulAlgoConfigGetAttribute(&h[i].algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM, &splitk, sizeof splitk, &w);
    printf("  #%-2d id %d tile %d stages %d splitk %d ws %zu: %s %.1f us\n", i, id, tile, stages, splitk,
           h[i].workspaceSize, st ? "status" : "", st ? (float)st : us);
  }
  cublasLtMatmulPreferenceDestroy(pref);
  cublasLtMatrixLayoutDestroy(la); cublasLtMatrixLayoutDestroy(lb); cublasLtMatrixLayoutDestroy(lc); cublasLtMatrixLayoutDestroy(ld);
  cublasLtMatmulDescDestroy(op);
  return 0;
}
int main() {
  cublasLtHandle_t lt; cublasLtCreate(&lt);
  Bufs B; size_t big = (size_t)4096 * 4096;
  CK(cudaMalloc(&B.a, big)); CK(cudaMalloc(&B.b, big)); CK(cudaMalloc(&B.c, big * 2)); CK(cudaMalloc(&B.d, big * 2));
  CK(cudaMalloc(&B.aux, big)); CK(cudaMalloc(&B.bias, 4096 * 4)); CK(cudaMalloc(&B.scales, 256));
  B.ws_size = 32 << 20; CK(cudaMalloc(&B.ws, B.ws_size));
  fill8<<<1024, 256>>>((uint8_t *)B.a, big, 0); fill8<<<1024, 256>>>((uint8_t *)B.b, big, 0);
  fillu<<<1024, 256>>>((uint8_t *)B.aux, big); cudaMemset(B.bias, 0, 4096 * 4); cudaMemset(B.c, 0, big * 2);
  float sc[16] = {0.01f, 0, 0, 0, 0.01f, 0, 0, 0, 1.0f, 0, 0, 0, 0, 0, 0, 0};
  cudaMemcpy(B.scales, sc, sizeof sc, cudaMemcpyHostToDevice); CK(cudaDeviceSynchronize());
  printf("== backward data, 4096^3, A e4m3, B e4m3 as stand-in for e5m2 bytes ==\n");
  run(lt, "DEFAULT e4m3*e5m2 -> bf16 (today)", 4096, 4096, 4096, CUDA_R_8F_E5M2, CUDA_R_16BF, CUBLASLT_EPILOGUE_DEFAULT, 0, B);
  run(lt, "DRELU e4m3*e5m2 -> bf16", 4096, 4096, 4096, CUDA_R_8F_E5M2, CUDA_R_16BF, CUBLASLT_EPILOGUE_DRELU, 1, B);
  run(lt, "DRELU e4m3*e5m2 -> e5m2 +amax", 4096, 4096, 4096, CUDA_R_8F_E5M2, CUDA_R_8F_E5M2, CUBLASLT_EPILOGUE_DRELU, 1, B);
  run(lt, "DEFAULT e4m3*e5m2 -> e5m2 +amax", 4096, 4096, 4096, CUDA_R_8F_E5M2, CUDA_R_8F_E5M2, CUBLASLT_EPILOGUE_DEFAULT, 1, B);
  run(lt, "DRELU_BGRAD e4m3*e5m2 -> e5m2", 4096, 4096, 4096, CUDA_R_8F_E5M2, CUDA_R_8F_E5M2, CUBLASLT_EPILOGUE_DRELU_BGRAD, 1, B);
  run(lt, "DEFAULT e4m3*e5m2 k=16 -> e5m2 (D3)", 4096, 4096, 16, CUDA_R_8F_E5M2, CUDA_R_8F_E5M2, CUBLASLT_EPILOGUE_DEFAULT, 0, B);
  run(lt, "DRELU e4m3*e5m2 k=16 -> e5m2 (D3)", 4096, 4096, 16, CUDA_R_8F_E5M2, CUDA_R_8F_E5M2, CUBLASLT_EPILOGUE_DRELU, 1, B);
  run(lt, "DEFAULT e4m3*e5m2 k=16 -> bf16 (D3 today)", 4096, 4096, 16, CUDA_R_8F_E5M2, CUDA_R_16BF, CUBLASLT_EPILOGUE_DEFAULT, 0, B);
  printf("== forward 1, 784-4096, batch 4096 ==\n");
  run(lt, "DEFAULT e4m3 -> bf16", 4096, 4096, 784, CUDA_R_8F_E4M3, CUDA_R_16BF, CUBLASLT_EPILOGUE_DEFAULT, 1, B);
  run(lt, "RELU_AUX_BIAS e4m3 -> bf16", 4096, 4096, 784, CUDA_R_8F_E4M3, CUDA_R_16BF, CUBLASLT_EPILOGUE_RELU_AUX_BIAS, 1, B);
  run(lt, "RELU_AUX_BIAS e4m3 -> e4m3 +amax (today)", 4096, 4096, 784, CUDA_R_8F_E4M3, CUDA_R_8F_E4M3, CUBLASLT_EPILOGUE_RELU_AUX_BIAS, 1, B);
  run(lt, "RELU_BIAS e4m3 -> e4m3 +amax", 4096, 4096, 784, CUDA_R_8F_E4M3, CUDA_R_8F_E4M3, CUBLASLT_EPILOGUE_RELU_BIAS, 0, B);
  printf("== forward 2, 4096^3 ==\n");
  run(lt, "RELU_AUX_BIAS e4m3 -> e4m3 +amax (today)", 4096, 4096, 4096, CUDA_R_8F_E4M3, CUDA_R_8F_E4M3, CUBLASLT_EPILOGUE_RELU_AUX_BIAS, 1, B);
  cublasLtDestroy(lt);
  return 0;
}
