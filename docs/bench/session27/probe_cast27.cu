/* probe_cast27.cu: session 27's probe (issue 28), not shipped. Times the
 * project's fp8_cast (the liblayers.a it is linked with: HEAD's or the
 * working tree's) on the big fp8 step's shapes, 4096 features by a batch of
 * 4096, E5M2 at a delayed power-of-two scale: layer 1's ReLU and GELU casts
 * (dZ8T and the row sums), layer 2's ReLU cast (dZ8 too). Beside them, the
 * ceiling of a kernel with the same bytes: a streaming pass that reads the
 * BF16 gradient (and z for GELU's), two bytes of mask per 16 values, and
 * writes one byte a value, coalesced, no transpose, no arithmetic (GELU's:
 * the gradient and z, no mask). Each
 * round flushes the L2 (a 256 MB memset) first. Arguments: rounds (30), then
 * optionally a path prefix: each cast's outputs written to PREFIX-case.bin
 * first, for another build's to be compared byte for byte. */
#include <cuda_bf16.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <vector>

#include "layers/fp8_cast.h"
#include "lt/lt_shape.h"

#define CK(x)                                                                  \
  do {                                                                         \
    cudaError_t e_ = (x);                                                      \
    if (e_ != cudaSuccess) {                                                   \
      fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                       \
              cudaGetErrorString(e_));                                         \
      exit(2);                                                                 \
    }                                                                          \
  } while (0)

/* The ceiling: n16 chunks of 16 output bytes; each reads IN 16-byte source
 * chunks and a 2-byte mask word, writes one chunk. */
template <int IN, bool MASK>
__global__ void __launch_bounds__(256)
    stream_kernel(const uint4 *src, const uint16_t *mask, uint4 *out,
                  size_t n16) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n16;
       i += (size_t)gridDim.x * blockDim.x) {
    uint4 v = src[IN * i];
#pragma unroll
    for (int k = 1; k < IN; k++) {
      uint4 w = src[IN * i + k];
      v.x ^= w.x, v.y ^= w.y, v.z ^= w.z, v.w ^= w.w;
    }
    if (MASK) v.x ^= mask[i];
    out[i] = v;
  }
}

struct cast_case {
  const char *name;
  fp8_cast_args args;
  double mb; /* logical bytes */
};

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 30;
  const char *dump = argc > 2 ? argv[2] : NULL;
  const int F = 4096, n = 4096;
  int ld = lt_ld(F), aux_ld = lt_aux_ld(F), ldt8 = lt_ld_fp8(n);
  size_t values = (size_t)ld * n;
  std::vector<__nv_bfloat16> g(values), z(values);
  std::vector<uint32_t> mask((size_t)(aux_ld / 32) * n);
  srand(1);
  for (size_t i = 0; i < values; i++) {
    float u = (float)rand() / RAND_MAX - 0.5f;
    u = u < 0 ? u - 0.25f : u + 0.25f; /* no zeros, as the step's */
    g[i] = __float2bfloat16(u * 1e-3f * (1 + (int)(i % 7)));
    z[i] = __float2bfloat16(((float)rand() / RAND_MAX - 0.5f) * 8.0f);
  }
  for (auto &m : mask)
    m = ((uint32_t)rand() << 16) ^ (uint32_t)rand();
  void *d_g, *d_z, *d_mask, *d_flush, *d_gz;
  uint8_t *d_q, *d_qt;
  float *d_part, *d_scale;
  fp8_meta *d_meta;
  size_t tiles = (size_t)fp8_cast_tiles(n);
  CK(cudaMalloc(&d_g, values * 2));
  CK(cudaMalloc(&d_z, values * 2));
  CK(cudaMalloc(&d_gz, values * 4));
  CK(cudaMalloc(&d_mask, mask.size() * 4));
  CK(cudaMalloc(&d_q, (size_t)lt_ld_fp8(F) * n));
  CK(cudaMalloc(&d_qt, (size_t)ldt8 * F));
  CK(cudaMalloc(&d_part, tiles * F * 4));
  CK(cudaMalloc(&d_scale, 4));
  CK(cudaMalloc(&d_meta, sizeof(fp8_meta)));
  size_t flush_bytes = 256u << 20;
  CK(cudaMalloc(&d_flush, flush_bytes));
  CK(cudaMemcpy(d_g, g.data(), values * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_z, z.data(), values * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_gz, g.data(), values * 2, cudaMemcpyHostToDevice));
  CK(cudaMemcpy((char *)d_gz + values * 2, z.data(), values * 2,
                cudaMemcpyHostToDevice));
  CK(cudaMemcpy(d_mask, mask.data(), mask.size() * 4, cudaMemcpyHostToDevice));
  float scale = 8192.0f;
  CK(cudaMemcpy(d_scale, &scale, 4, cudaMemcpyHostToDevice));
  CK(cudaMemset(d_meta, 0, sizeof(fp8_meta)));

  fp8_cast_args l1;
  memset(&l1, 0, sizeof l1);
  l1.src_type = LT_DTYPE_BF16;
  l1.d_src = d_g;
  l1.ld_src = ld;
  l1.rows = F;
  l1.cols = n;
  l1.mask = FP8_MASK_RELU;
  l1.d_aux = d_mask;
  l1.aux_ld = aux_ld;
  l1.d_out_t = d_qt;
  l1.ld_out_t = ldt8;
  l1.d_partials = d_part;
  l1.d_scale = d_scale;
  l1.d_meta = d_meta;
  l1.format = LT_FP8_E5M2;
  fp8_cast_args gelu = l1, l2 = l1;
  gelu.mask = FP8_MASK_GELU;
  gelu.d_aux = d_z;
  gelu.aux_ld = ld;
  l2.d_out = d_q;
  l2.ld_out = lt_ld_fp8(F);
  double in = (double)F * n * 2 / 1e6, m = (double)F * n / 8 / 1e6,
         q = (double)F * n / 1e6;
  cast_case cases[] = {{"relu_l1", l1, in + m + q},
                       {"gelu_l1", gelu, 2 * in + q},
                       {"relu_l2", l2, in + m + 2 * q}};
  const int ncases = 3;
  if (dump) {
    for (int c = 0; c < ncases; c++) {
      CK(cudaMemset(d_q, 0, (size_t)lt_ld_fp8(F) * n));
      CK(cudaMemset(d_qt, 0, (size_t)ldt8 * F));
      CK(cudaMemset(d_part, 0, tiles * F * 4));
      CK(cudaMemset(d_meta, 0, sizeof(fp8_meta)));
      if (fp8_cast(&cases[c].args, NULL, 0) != 0) return 1;
      CK(cudaDeviceSynchronize());
      std::vector<uint8_t> a((size_t)lt_ld_fp8(F) * n), b((size_t)ldt8 * F);
      std::vector<float> p(tiles * F);
      fp8_meta mt;
      CK(cudaMemcpy(a.data(), d_q, a.size(), cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(b.data(), d_qt, b.size(), cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(p.data(), d_part, p.size() * 4, cudaMemcpyDeviceToHost));
      CK(cudaMemcpy(&mt, d_meta, sizeof mt, cudaMemcpyDeviceToHost));
      char path[512];
      snprintf(path, sizeof path, "%s-%s.bin", dump, cases[c].name);
      FILE *f = fopen(path, "wb");
      if (!f) return 1;
      fwrite(a.data(), 1, a.size(), f);
      fwrite(b.data(), 1, b.size(), f);
      fwrite(p.data(), 4, p.size(), f);
      fwrite(&mt.amax, 4, 1, f);
      fwrite(&mt.saturated, 4, 1, f);
      fwrite(&mt.flushed, 4, 1, f);
      fwrite(&mt.nan, 4, 1, f);
      fclose(f);
      printf("dumped %s\n", path);
    }
  }
  /* the ceilings: relu (2 source chunks), gelu (4) */
  uint8_t *d_sink;
  CK(cudaMalloc(&d_sink, (size_t)F * n));
  size_t n16 = (size_t)F * n / 16;
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  const int kinds = ncases + 2;
  std::vector<float> t[kinds];
  for (int r = 0; r < rounds + 2; r++)
    for (int v = 0; v < kinds; v++) {
      int which = (r + v) % kinds;
      CK(cudaMemsetAsync(d_flush, r & 0xFF, flush_bytes, 0));
      CK(cudaEventRecord(e0, 0));
      if (which < ncases) {
        if (fp8_cast(&cases[which].args, NULL, 0) != 0) return 1;
      } else if (which == ncases) {
        stream_kernel<2, true><<<132 * 8, 256>>>(
            (const uint4 *)d_g, (const uint16_t *)d_mask, (uint4 *)d_sink, n16);
      } else {
        stream_kernel<4, false><<<132 * 8, 256>>>((const uint4 *)d_gz,
                                                  (const uint16_t *)d_mask,
                                                  (uint4 *)d_sink, n16);
      }
      CK(cudaGetLastError());
      CK(cudaEventRecord(e1, 0));
      CK(cudaEventSynchronize(e1));
      float ms;
      CK(cudaEventElapsedTime(&ms, e0, e1));
      if (r >= 2) t[which].push_back(ms * 1000.0f);
    }
  const char *names[kinds] = {"relu_l1", "gelu_l1", "relu_l2", "stream_relu_l1",
                              "stream_gelu_l1"};
  double mbs[kinds] = {cases[0].mb, cases[1].mb, cases[2].mb, in + m + q,
                       2 * in + q};
  for (int k = 0; k < kinds; k++) {
    std::sort(t[k].begin(), t[k].end());
    float med = t[k][t[k].size() / 2];
    printf("events %-18s %.1f MB: %.1f us (%.1f-%.1f), %.2f TB/s\n", names[k],
           mbs[k], med, t[k].front(), t[k].back(), mbs[k] / med);
  }
  return 0;
}
