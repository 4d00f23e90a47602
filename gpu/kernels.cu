/* kernels.cu: the CUDA kernels cuBLASLt cannot do (see kernels.h). */
#include <math.h>
#include <stdio.h>

#include "kernels.h"

#define LAUNCH_CHECK(name)                                                     \
  do {                                                                         \
    cudaError_t status_ = cudaGetLastError();                                  \
    if (status_ != cudaSuccess) {                                              \
      fprintf(stderr, "%s:%d: launch of %s failed: %s (%s)\n", __FILE__,       \
              __LINE__, name, cudaGetErrorName(status_),                       \
              cudaGetErrorString(status_));                                    \
      return -1;                                                               \
    }                                                                          \
  } while (0)

static unsigned blocks_for(size_t count, unsigned threads) {
  size_t blocks = (count + threads - 1) / threads;
  return (unsigned)(blocks < 65535 * 32 ? (blocks ? blocks : 1) : 65535 * 32);
}

/* One block per sample; its threads convert the sample's pixels. */
__global__ void gather_kernel(float *x, int *y, const uint8_t *images,
                              const uint8_t *labels, const int *order,
                              int batch, size_t batch_stride, int features,
                              float scale, float shift) {
  int j = blockIdx.x;
  int sample = order[j];
  const uint8_t *src = images + (size_t)sample * features;
  float *dst = x + (size_t)(j / batch) * batch_stride +
               (size_t)(j % batch) * features;
  if (features % 4 == 0 && ((size_t)dst & 15) == 0) {
    const uchar4 *src4 = (const uchar4 *)src;
    float4 *dst4 = (float4 *)dst;
    for (int p = threadIdx.x; p < features / 4; p += blockDim.x) {
      uchar4 v = src4[p];
      dst4[p] = make_float4(v.x * scale + shift, v.y * scale + shift,
                            v.z * scale + shift, v.w * scale + shift);
    }
  } else {
    for (int p = threadIdx.x; p < features; p += blockDim.x)
      dst[p] = src[p] * scale + shift;
  }
  if (threadIdx.x == 0) y[j] = labels[sample];
}

extern "C" int gpu_gather_batches(float *d_x, int *d_y,
                                  const uint8_t *d_images,
                                  const uint8_t *d_labels, const int *d_order,
                                  int count, int batch, size_t batch_stride,
                                  int features, float scale, float shift,
                                  cudaStream_t stream) {
  gather_kernel<<<count, 256, 0, stream>>>(d_x, d_y, d_images, d_labels,
                                           d_order, batch, batch_stride,
                                           features, scale, shift);
  LAUNCH_CHECK("gather_kernel");
  return 0;
}

enum { XENT_THREADS = 256, XENT_WARPS = XENT_THREADS / 32 };

/* One block: thread t takes samples t, t + 256, ...; then loss and hit
 * count are reduced with warp shuffles and the 8 warp sums added by one
 * thread in warp order: a fixed order, so the result is deterministic. */
__global__ void xent_kernel(float *dlogits, double *stats,
                            const float *logits, const int *labels,
                            int classes, int n) {
  __shared__ double loss_part[XENT_WARPS];
  __shared__ int correct_part[XENT_WARPS];
  double loss = 0.0;
  int correct = 0;
  float inv_n = 1.0f / (float)n;
  for (int j = threadIdx.x; j < n; j += blockDim.x) {
    const float *z = logits + (size_t)j * classes;
    int label = labels[j];
    float zmax = z[0];
    int argmax = 0;
    for (int c = 1; c < classes; c++)
      if (z[c] > zmax) {
        zmax = z[c];
        argmax = c;
      }
    float sum = 0.0f;
    for (int c = 0; c < classes; c++) sum += expf(z[c] - zmax);
    float log_sum = logf(sum);
    loss += (double)(log_sum - (z[label] - zmax));
    correct += argmax == label;
    if (dlogits) {
      float *g = dlogits + (size_t)j * classes;
      for (int c = 0; c < classes; c++) {
        float p = expf(z[c] - zmax - log_sum);
        g[c] = (p - (c == label ? 1.0f : 0.0f)) * inv_n;
      }
    }
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    loss += __shfl_down_sync(0xffffffffu, loss, offset);
    correct += __shfl_down_sync(0xffffffffu, correct, offset);
  }
  int warp = threadIdx.x / 32;
  if (threadIdx.x % 32 == 0) {
    loss_part[warp] = loss;
    correct_part[warp] = correct;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    double total_loss = 0.0;
    int total_correct = 0;
    for (int w = 0; w < XENT_WARPS; w++) {
      total_loss += loss_part[w];
      total_correct += correct_part[w];
    }
    stats[0] += total_loss;
    stats[1] += (double)total_correct;
  }
}

extern "C" int gpu_xent_loss_grad(float *d_dlogits, double *d_stats,
                                  const float *d_logits, const int *d_labels,
                                  int classes, int n, cudaStream_t stream) {
  xent_kernel<<<1, XENT_THREADS, 0, stream>>>(d_dlogits, d_stats, d_logits,
                                              d_labels, classes, n);
  LAUNCH_CHECK("xent_kernel");
  return 0;
}

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

extern "C" int gpu_sgd_update(float *d_params, float *d_velocity,
                              const float *d_grads, size_t count,
                              const float *d_lr, float momentum,
                              cudaStream_t stream) {
  float *velocity = momentum != 0.0f ? d_velocity : NULL;
  if (count % 4 == 0) {
    sgd4_kernel<<<blocks_for(count / 4, 256), 256, 0, stream>>>(
        (float4 *)d_params, (float4 *)velocity, (const float4 *)d_grads,
        count / 4, d_lr, momentum);
  } else {
    sgd_kernel<<<blocks_for(count, 256), 256, 0, stream>>>(
        d_params, velocity, d_grads, count, d_lr, momentum);
  }
  LAUNCH_CHECK("sgd_kernel");
  return 0;
}

__global__ void bias_add_kernel(float *y, int ld, const float *bias, int m,
                                int n) {
  size_t total = (size_t)m * n;
  for (size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x; t < total;
       t += (size_t)gridDim.x * blockDim.x) {
    int i = (int)(t % m);
    size_t j = t / m;
    y[j * ld + i] += bias[i];
  }
}

extern "C" int gpu_bias_add(float *d_y, int ld, const float *d_bias, int m,
                            int n, cudaStream_t stream) {
  bias_add_kernel<<<blocks_for((size_t)m * n, 256), 256, 0, stream>>>(
      d_y, ld, d_bias, m, n);
  LAUNCH_CHECK("bias_add_kernel");
  return 0;
}

/* One thread per mask byte: rows 8b .. 8b+7 of column j. */
__global__ void relu_mask_forward_kernel(float *y, int ld, uint8_t *mask,
                                         int aux_bytes, int m, int n) {
  int bytes_per_col = (m + 7) / 8;
  size_t total = (size_t)bytes_per_col * n;
  for (size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x; t < total;
       t += (size_t)gridDim.x * blockDim.x) {
    int b = (int)(t % bytes_per_col);
    size_t j = t / bytes_per_col;
    float *col = y + j * ld;
    unsigned bits = 0;
    for (int r = 0; r < 8; r++) {
      int i = 8 * b + r;
      if (i < m) {
        float v = col[i];
        /* "not below 0", as cuBLASLt's RELU_AUX_BIAS (measured on the
         * H200): an exact zero passes the gradient, and a NaN passes
         * through as NaN, so divergence reaches the loss in both modes. */
        int pass = !(v < 0.0f);
        if (pass) bits |= 1u << r;
        col[i] = pass ? v : 0.0f;
      }
    }
    mask[j * aux_bytes + b] = (uint8_t)bits;
  }
}

extern "C" int gpu_relu_mask_forward(float *d_y, int ld, uint8_t *d_mask,
                                     int aux_ld, int m, int n,
                                     cudaStream_t stream) {
  size_t total = (size_t)((m + 7) / 8) * n;
  relu_mask_forward_kernel<<<blocks_for(total, 256), 256, 0, stream>>>(
      d_y, ld, d_mask, aux_ld / 8, m, n);
  LAUNCH_CHECK("relu_mask_forward_kernel");
  return 0;
}

__global__ void relu_mask_backward_kernel(float *g, int ld,
                                          const uint8_t *mask, int aux_bytes,
                                          int m, int n) {
  size_t total = (size_t)m * n;
  for (size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x; t < total;
       t += (size_t)gridDim.x * blockDim.x) {
    int i = (int)(t % m);
    size_t j = t / m;
    int bit = (mask[j * aux_bytes + i / 8] >> (i % 8)) & 1;
    if (!bit) g[j * ld + i] = 0.0f;
  }
}

extern "C" int gpu_relu_mask_backward(float *d_g, int ld,
                                      const uint8_t *d_mask, int aux_ld, int m,
                                      int n, cudaStream_t stream) {
  relu_mask_backward_kernel<<<blocks_for((size_t)m * n, 256), 256, 0,
                              stream>>>(d_g, ld, d_mask, aux_ld / 8, m, n);
  LAUNCH_CHECK("relu_mask_backward_kernel");
  return 0;
}

enum { BGRAD_ROWS = 32, BGRAD_SLICES = 16 };

/* Block (32, 16): 32 rows, 16 slices of columns each summed in order, then
 * the 16 partials summed in a fixed order. */
__global__ void bias_grad_kernel(float *db, const float *g, int ld, int m,
                                 int n) {
  __shared__ float part[BGRAD_SLICES][BGRAD_ROWS];
  int i = blockIdx.x * BGRAD_ROWS + threadIdx.x;
  float sum = 0.0f;
  if (i < m)
    for (int j = threadIdx.y; j < n; j += BGRAD_SLICES)
      sum += g[(size_t)j * ld + i];
  part[threadIdx.y][threadIdx.x] = sum;
  __syncthreads();
  if (threadIdx.y == 0 && i < m) {
    float total = 0.0f;
    for (int s = 0; s < BGRAD_SLICES; s++) total += part[s][threadIdx.x];
    db[i] = total;
  }
}

extern "C" int gpu_bias_grad(float *d_db, const float *d_g, int ld, int m,
                             int n, cudaStream_t stream) {
  dim3 block(BGRAD_ROWS, BGRAD_SLICES);
  bias_grad_kernel<<<(m + BGRAD_ROWS - 1) / BGRAD_ROWS, block, 0, stream>>>(
      d_db, d_g, ld, m, n);
  LAUNCH_CHECK("bias_grad_kernel");
  return 0;
}

__global__ void copy_matrix_kernel(float *dst, int ld_dst, const float *src,
                                   int ld_src, int m, int n) {
  size_t total = (size_t)m * n;
  for (size_t t = blockIdx.x * (size_t)blockDim.x + threadIdx.x; t < total;
       t += (size_t)gridDim.x * blockDim.x) {
    int i = (int)(t % m);
    size_t j = t / m;
    dst[j * ld_dst + i] = src[j * ld_src + i];
  }
}

extern "C" int gpu_copy_matrix(float *d_dst, int ld_dst, const float *d_src,
                               int ld_src, int m, int n, cudaStream_t stream) {
  copy_matrix_kernel<<<blocks_for((size_t)m * n, 256), 256, 0, stream>>>(
      d_dst, ld_dst, d_src, ld_src, m, n);
  LAUNCH_CHECK("copy_matrix_kernel");
  return 0;
}

/* One block; fmaxf would drop NaN, so NaN is carried explicitly. */
__global__ void compare_kernel(float *out, const float *x, int ld_x,
                               const float *y, int ld_y, int m, int n) {
  __shared__ float diff_part[256], ref_part[256];
  float diff = 0.0f, ref = 0.0f;
  size_t total = (size_t)m * n;
  for (size_t t = threadIdx.x; t < total; t += blockDim.x) {
    int i = (int)(t % m);
    size_t j = t / m;
    float a = x[j * ld_x + i], b = y[j * ld_y + i];
    float d = fabsf(a - b);
    diff = (d > diff || isnan(d)) && !isnan(diff) ? d : diff;
    ref = fmaxf(ref, fabsf(b));
  }
  diff_part[threadIdx.x] = diff;
  ref_part[threadIdx.x] = ref;
  __syncthreads();
  for (int stride = 128; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) {
      float o = diff_part[threadIdx.x + stride];
      float s = diff_part[threadIdx.x];
      diff_part[threadIdx.x] = (o > s || isnan(o)) && !isnan(s) ? o : s;
      ref_part[threadIdx.x] =
          fmaxf(ref_part[threadIdx.x], ref_part[threadIdx.x + stride]);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    out[0] = diff_part[0];
    out[1] = ref_part[0];
  }
}

extern "C" int gpu_compare_matrices(float *d_out, const float *d_x, int ld_x,
                                    const float *d_y, int ld_y, int m, int n,
                                    cudaStream_t stream) {
  compare_kernel<<<1, 256, 0, stream>>>(d_out, d_x, ld_x, d_y, ld_y, m, n);
  LAUNCH_CHECK("compare_kernel");
  return 0;
}

__global__ void empty_kernel(void) {}

extern "C" int gpu_empty_kernel(cudaStream_t stream) {
  empty_kernel<<<1, 32, 0, stream>>>();
  LAUNCH_CHECK("empty_kernel");
  return 0;
}
