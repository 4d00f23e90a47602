/* sgd.cu: SGD with momentum over the parameter slab (see sgd.h). */
#include <stdio.h>

#include "gpu/gpu_check.h"
#include "gpu/gpu_grid.h"
#include "gpu/gpu_launch.cuh"
#include "layers/sgd.h"
#include "layers/sgd_step.cuh"
#include "lt/lt_types.cuh"

/* One element: the update of sgd.h (sgd_step.cuh). */
template <typename T>
__device__ __forceinline__ float sgd_one(float p, float *v, T g, float lr,
                                         float momentum, float unscale,
                                         bool use_velocity) {
  return sgd_step(p, v, lt_to_float(g), lr, momentum, unscale, use_velocity);
}

template <typename T>
__global__ void sgd_kernel(float *params, float *velocity, const T *grads,
                           T *copy, size_t count, const float *d_lr,
                           float momentum, float unscale, int trigger) {
  gpu_wait_previous();
  gpu_allow_next(trigger);
  float lr = *d_lr;
  bool use_velocity = velocity != NULL;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
       i += (size_t)gridDim.x * blockDim.x) {
    float v = use_velocity ? velocity[i] : 0.0f;
    float p =
        sgd_one(params[i], &v, grads[i], lr, momentum, unscale, use_velocity);
    params[i] = p;
    if (use_velocity) velocity[i] = v;
    if (copy) copy[i] = lt_from_float<T>(p);
  }
}

/* Four elements: 16 bytes of each FP32 slab, 8 (16-bit) or 16 (FP32)
 * of the gradient and the copy. */
template <typename T> struct __align__(4 * sizeof(T)) sgd_pack4 {
  T v[4];
};

/* Four elements per thread, one 16-byte load of each FP32 slab (the slab
 * is padded to a multiple of 128 elements and 256-byte aligned). Measured
 * on the H200 in the 784-4096-4096-10 BF16 step (ncu, docs/performance.md):
 * 95 us for 20.04 M parameters (400 MB, 4.2 TB/s); eight elements per
 * thread took 117 us. */
template <typename T>
__global__ void
sgd4_kernel(float4 *__restrict__ params, float4 *__restrict__ velocity,
            const sgd_pack4<T> *__restrict__ grads,
            sgd_pack4<T> *__restrict__ copy, size_t count4, const float *d_lr,
            float momentum, float unscale, int trigger) {
  gpu_wait_previous();
  gpu_allow_next(trigger);
  float lr = *d_lr;
  bool use_velocity = velocity != NULL;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count4;
       i += (size_t)gridDim.x * blockDim.x) {
    float4 p4 = params[i];
    float4 v4 = use_velocity ? velocity[i] : make_float4(0, 0, 0, 0);
    sgd_pack4<T> g = grads[i], c;
    float *p = (float *)&p4, *v = (float *)&v4;
#pragma unroll
    for (int r = 0; r < 4; r++) {
      p[r] = sgd_one(p[r], &v[r], g.v[r], lr, momentum, unscale, use_velocity);
      c.v[r] = lt_from_float<T>(p[r]);
    }
    params[i] = p4;
    if (use_velocity) velocity[i] = v4;
    if (copy) copy[i] = c;
  }
}

extern "C" int sgd_update(const sgd_slabs *s, const float *d_lr, float momentum,
                          float grad_unscale, gpu_early_cache *early,
                          cudaStream_t stream) {
  float *velocity = momentum != 0.0f ? s->d_velocity : NULL;
  size_t n = s->count;
  if (n % 4 == 0) {
    LT_DISPATCH(s->type,
                gpu_launch(early, sgd4_kernel<T>,
                           dim3(gpu_grid_blocks(n / 4, 256)), dim3(256), stream,
                           (float4 *)s->d_params, (float4 *)velocity,
                           (const sgd_pack4<T> *)s->d_grads,
                           (sgd_pack4<T> *)s->d_copy, n / 4, d_lr, momentum,
                           grad_unscale, gpu_early_trigger(early)));
  } else {
    LT_DISPATCH(s->type,
                gpu_launch(early, sgd_kernel<T>, dim3(gpu_grid_blocks(n, 256)),
                           dim3(256), stream, s->d_params, velocity,
                           (const T *)s->d_grads, (T *)s->d_copy, n, d_lr,
                           momentum, grad_unscale, gpu_early_trigger(early)));
  }
  CUDA_CHECK_KERNEL("sgd_kernel");
  return 0;
}

template <typename T>
__global__ void copy_kernel(T *copy, const float *params, size_t count) {
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
       i += (size_t)gridDim.x * blockDim.x)
    copy[i] = lt_from_float<T>(params[i]);
}

extern "C" int sgd_write_copy(const sgd_slabs *s, cudaStream_t stream) {
  if (!s->d_copy) return 0;
  LT_DISPATCH(s->type, copy_kernel<T>
              <<<gpu_grid_blocks(s->count, 256), 256, 0, stream>>>(
                  (T *)s->d_copy, s->d_params, s->count));
  CUDA_CHECK_KERNEL("copy_kernel");
  return 0;
}
