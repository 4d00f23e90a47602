/* epoch_gather.cu: one epoch's batches gathered and normalised on the GPU
 * (see epoch_gather.h). */
#include <stdio.h>

#include "../gpu/gpu_check.h"
#include "epoch_gather.h"

/* One block per sample; its threads convert the sample's pixels. */
__global__ void gather_kernel(float *x, int *y, const uint8_t *images,
                              const uint8_t *labels, const int *order,
                              int batch, size_t batch_stride, int features,
                              float scale, float shift) {
  int j = blockIdx.x;
  int sample = order[j];
  const uint8_t *src = images + (size_t)sample * features;
  float *dst =
      x + (size_t)(j / batch) * batch_stride + (size_t)(j % batch) * features;
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

extern "C" int epoch_gather_batches(float *d_x, int *d_y,
                                    const uint8_t *d_images,
                                    const uint8_t *d_labels, const int *d_order,
                                    int count, int batch, size_t batch_stride,
                                    int features, float scale, float shift,
                                    cudaStream_t stream) {
  gather_kernel<<<count, 256, 0, stream>>>(d_x, d_y, d_images, d_labels,
                                           d_order, batch, batch_stride,
                                           features, scale, shift);
  CUDA_CHECK_KERNEL("gather_kernel");
  return 0;
}
