/* epoch_gather.cu: one epoch's batches gathered and normalised on the GPU
 * (see epoch_gather.h). */
#include <stdio.h>

#include "gpu/gpu_check.h"
#include "layers/fp8_device.cuh"
#include "layers/mlp_fp8.h"
#include "lt/lt_types.cuh"
#include "train/epoch_gather.h"

/* A pixel's value stored: rounded once to the storage type, or cast to
 * E4M3 at the batches' scale. */
template <typename T> struct stored_as {
  __device__ T operator()(float v) const {
    return lt_from_float<T>(v);
  }
};

struct stored_e4m3 {
  float scale;
  __device__ uint8_t operator()(float v) const {
    return fp8_encode_device(v * scale, LT_FP8_E4M3);
  }
};

/* One block per sample; its threads convert the sample's pixels. */
template <typename T, typename Store>
__global__ void gather_kernel(T *x, int *y, const uint8_t *images,
                              const uint8_t *labels, const int *order,
                              int batch, size_t batch_stride, int features,
                              int ld, float scale, float shift, Store store) {
  int j = blockIdx.x;
  int sample = order[j];
  const uint8_t *src = images + (size_t)sample * features;
  T *dst = x + (size_t)(j / batch) * batch_stride + (size_t)(j % batch) * ld;
  for (int p = threadIdx.x; p < features; p += blockDim.x)
    dst[p] = store(__fmaf_rn((float)src[p], scale, shift)); /* one rounding */
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
                        batch_stride, features, lt_ld(features), scale, shift,
                        stored_as<T>()));
  CUDA_CHECK_KERNEL("gather_kernel");
  return 0;
}

extern "C" int epoch_gather_fp8(void *d_x, int *d_y, const uint8_t *d_images,
                                const uint8_t *d_labels, const int *d_order,
                                int count, int batch, size_t batch_bytes,
                                int features, float scale, float shift,
                                float fp8_scale, cudaStream_t stream) {
  uint8_t *x = (uint8_t *)d_x;
  int ld = lt_ld_fp8(features);
  gather_kernel<<<count, 256, 0, stream>>>(
      x + MLP_FP8_BATCH_X8, d_y, d_images, d_labels, d_order, batch,
      batch_bytes, features, ld, scale, shift, stored_e4m3{fp8_scale});
  CUDA_CHECK_KERNEL("gather_kernel (fp8)");
  /* The full batches in one transpose, the last partial one in another. */
  int full = count / batch, last = count % batch;
  if (full > 0 &&
      fp8_transpose(x + mlp_fp8_batch_x8t(features, batch), lt_ld_fp8(batch),
                    x + MLP_FP8_BATCH_X8, ld, features, batch, full,
                    batch_bytes, batch_bytes, NULL, stream) != 0)
    return -1;
  uint8_t *tail = x + (size_t)full * batch_bytes;
  if (last > 0 && fp8_transpose(tail + mlp_fp8_batch_x8t(features, last),
                                lt_ld_fp8(last), tail + MLP_FP8_BATCH_X8, ld,
                                features, last, 1, 0, 0, NULL, stream) != 0)
    return -1;
  return 0;
}
