/* epoch_gather.cu: one epoch's batches gathered and normalised on the GPU
 * (see epoch_gather.h). */
#include <stdio.h>

#include "gpu/gpu_check.h"
#include "lt/lt_types.cuh"
#include "train/epoch_gather.h"

/* One block per sample; its threads convert the sample's pixels, rounded
 * once to the storage type. */
template <typename T>
__global__ void gather_kernel(T *x, int *y, const uint8_t *images,
                              const uint8_t *labels, const int *order,
                              int batch, size_t batch_stride, int features,
                              int ld, float scale, float shift) {
  int j = blockIdx.x;
  int sample = order[j];
  const uint8_t *src = images + (size_t)sample * features;
  T *dst = x + (size_t)(j / batch) * batch_stride + (size_t)(j % batch) * ld;
  for (int p = threadIdx.x; p < features; p += blockDim.x)
    dst[p] = lt_from_float<T>(src[p] * scale + shift);
  if (threadIdx.x == 0) y[j] = labels[sample];
}

extern "C" int epoch_gather_batches(lt_dtype type, void *d_x, int *d_y,
                                    const uint8_t *d_images,
                                    const uint8_t *d_labels, const int *d_order,
                                    int count, int batch, size_t batch_stride,
                                    int features, float scale, float shift,
                                    cudaStream_t stream) {
  LT_DISPATCH(type, gather_kernel<T><<<count, 256, 0, stream>>>(
                        (T *)d_x, d_y, d_images, d_labels, d_order, batch,
                        batch_stride, features, lt_ld(features), scale, shift));
  CUDA_CHECK_KERNEL("gather_kernel");
  return 0;
}
