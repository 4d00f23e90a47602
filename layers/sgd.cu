/* sgd.cu: SGD with momentum over the parameter slab (see sgd.h). */
#include <stdio.h>

#include "../gpu/gpu_check.h"
#include "../gpu/gpu_grid.h"
#include "sgd.h"

__global__ void sgd_kernel(float *params, float *velocity, const float *grads,
                           size_t count, const float *d_lr, float momentum) {
  float lr = *d_lr;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count;
       i += (size_t)gridDim.x * blockDim.x) {
    float g = grads[i];
    if (velocity) {
      g = momentum * velocity[i] + g;
      velocity[i] = g;
    }
    params[i] -= lr * g;
  }
}

/* float4 version: the slab is padded to a multiple of 4 floats and
 * 16-byte aligned (cudaMalloc). */
__global__ void sgd4_kernel(float4 *params, float4 *velocity,
                            const float4 *grads, size_t count4,
                            const float *d_lr, float momentum) {
  float lr = *d_lr;
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count4;
       i += (size_t)gridDim.x * blockDim.x) {
    float4 g = grads[i], p = params[i];
    if (velocity) {
      float4 v = velocity[i];
      g.x += momentum * v.x;
      g.y += momentum * v.y;
      g.z += momentum * v.z;
      g.w += momentum * v.w;
      velocity[i] = g;
    }
    p.x -= lr * g.x;
    p.y -= lr * g.y;
    p.z -= lr * g.z;
    p.w -= lr * g.w;
    params[i] = p;
  }
}

extern "C" int sgd_update(float *d_params, float *d_velocity,
                          const float *d_grads, size_t count, const float *d_lr,
                          float momentum, cudaStream_t stream) {
  float *velocity = momentum != 0.0f ? d_velocity : NULL;
  if (count % 4 == 0) {
    sgd4_kernel<<<gpu_grid_blocks(count / 4, 256), 256, 0, stream>>>(
        (float4 *)d_params, (float4 *)velocity, (const float4 *)d_grads,
        count / 4, d_lr, momentum);
  } else {
    sgd_kernel<<<gpu_grid_blocks(count, 256), 256, 0, stream>>>(
        d_params, velocity, d_grads, count, d_lr, momentum);
  }
  CUDA_CHECK_KERNEL("sgd_kernel");
  return 0;
}
