// Bandwidth probe (session 9, not shipped): what a perfectly linear kernel with SGD-FP8's byte mix
// (read p, v FP32 and g BF16; write p, v FP32 and two FP8 codes: 20 bytes per element) reaches on
// this GPU, against a plain copy. Median of 21 timed launches after warm-up, CUDA events.
#include <cstdio>
#include <cstdint>
#include <algorithm>
#include <vector>
__global__ void mix(float4 *p, float4 *v, const uint2 *g, uint32_t *w8, uint32_t *w8t, size_t n4) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x) {
    float4 a = p[i], b = v[i]; uint2 c = g[i];
    float gg = __uint_as_float(c.x << 16);
    b.x = 0.9f * b.x + gg; b.y = 0.9f * b.y + gg; b.z = 0.9f * b.z + gg; b.w = 0.9f * b.w + gg;
    a.x -= 0.05f * b.x; a.y -= 0.05f * b.y; a.z -= 0.05f * b.z; a.w -= 0.05f * b.w;
    p[i] = a; v[i] = b; w8[i] = __float_as_uint(a.x) ^ c.y; w8t[i] = __float_as_uint(a.y);
  }
}
__global__ void copy(float4 *dst, const float4 *src, size_t n4) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x) dst[i] = src[i];
}
__global__ void readonly(const float4 *src, float *out, size_t n4) {
  float s = 0;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x) { float4 a = src[i]; s += a.x + a.y + a.z + a.w; }
  if (s == 12345.f) *out = s;
}
template <class F> float med(F f) {
  cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b);
  for (int i = 0; i < 3; i++) f();
  std::vector<float> t;
  for (int i = 0; i < 21; i++) { cudaEventRecord(a); f(); cudaEventRecord(b); cudaEventSynchronize(b); float ms; cudaEventElapsedTime(&ms, a, b); t.push_back(ms); }
  std::sort(t.begin(), t.end()); return t[10] * 1000;
}
int main() {
  size_t n = 20037632, n4 = n / 4;
  float4 *p, *v, *s, *d; uint2 *g; uint32_t *w8, *w8t; float *o;
  cudaMalloc(&p, n * 4); cudaMalloc(&v, n * 4); cudaMalloc(&g, n * 2); cudaMalloc(&w8, n); cudaMalloc(&w8t, n);
  cudaMalloc(&s, n * 8); cudaMalloc(&d, n * 8); cudaMalloc(&o, 4);
  cudaMemset(p, 0, n * 4); cudaMemset(v, 0, n * 4); cudaMemset(g, 0, n * 2); cudaMemset(s, 0, n * 8);
  int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  for (int blocks : {sms * 4, sms * 8, sms * 16, (int)((n4 + 255) / 256)}) {
    float t = med([&] { mix<<<blocks, 256>>>(p, v, g, w8, w8t, n4); });
    printf("sgd mix (20 B/elem, %zu MB): %d blocks: %.1f us, %.2f TB/s\n", n * 20 / 1000000, blocks, t, n * 20 / t / 1e6);
  }
  for (int blocks : {sms * 8, (int)((n * 2 + 255) / 256)}) {
    float t = med([&] { copy<<<blocks, 256>>>(d, s, n * 2); });
    printf("copy (%zu MB read + write): %d blocks: %.1f us, %.2f TB/s\n", n * 8 / 1000000, blocks, t, n * 16 / t / 1e6);
    t = med([&] { readonly<<<blocks, 256>>>(s, o, n * 2); });
    printf("read only (%zu MB): %d blocks: %.1f us, %.2f TB/s\n", n * 8 / 1000000, blocks, t, n * 8 / t / 1e6);
  }
  float t = med([&] { cudaMemcpyAsync(d, s, n * 8, cudaMemcpyDeviceToDevice); });
  printf("cudaMemcpy D2D (%zu MB each way): %.1f us, %.2f TB/s counted both ways\n", n * 8 / 1000000, t, n * 16 / t / 1e6);
  return 0;
}
