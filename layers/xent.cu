/* xent.cu: softmax cross-entropy, its gradient and the hit count (see
 * xent.h). */
#include <math.h>
#include <stdio.h>

#include "../gpu/gpu_check.h"
#include "../gpu/lt_types.cuh"
#include "xent.h"

enum { XENT_THREADS = 256, XENT_WARPS = XENT_THREADS / 32 };

/* One block: thread t takes samples t, t + 256, ...; then loss and hit
 * count are reduced with warp shuffles and the 8 warp sums added by one
 * thread in warp order: a fixed order, so the result is deterministic. */
template <typename T>
__global__ void xent_kernel(T *dlogits, double *stats, const T *logits, int ld,
                            const int *labels, int classes, int n,
                            float grad_scale) {
  __shared__ double loss_part[XENT_WARPS];
  __shared__ int correct_part[XENT_WARPS];
  double loss = 0.0;
  int correct = 0;
  float scale = grad_scale / (float)n;
  for (int j = threadIdx.x; j < n; j += blockDim.x) {
    const T *z = logits + (size_t)j * ld;
    int label = labels[j];
    float zmax = lt_to_float(z[0]);
    int argmax = 0;
    for (int c = 1; c < classes; c++)
      if (lt_to_float(z[c]) > zmax) {
        zmax = lt_to_float(z[c]);
        argmax = c;
      }
    float sum = 0.0f;
    for (int c = 0; c < classes; c++)
      sum += expf(lt_to_float(z[c]) - zmax);
    float log_sum = logf(sum);
    loss += (double)(log_sum - (lt_to_float(z[label]) - zmax));
    correct += argmax == label;
    if (dlogits) {
      T *g = dlogits + (size_t)j * ld;
      for (int c = 0; c < classes; c++) {
        float p = expf(lt_to_float(z[c]) - zmax - log_sum);
        g[c] = lt_from_float<T>((p - (c == label ? 1.0f : 0.0f)) * scale);
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

extern "C" int xent_loss_grad(lt_dtype type, void *d_dlogits, double *d_stats,
                              const void *d_logits, int ld, const int *d_labels,
                              int classes, int n, float grad_scale,
                              cudaStream_t stream) {
  LT_DISPATCH(type, xent_kernel<T><<<1, XENT_THREADS, 0, stream>>>(
                        (T *)d_dlogits, d_stats, (const T *)d_logits, ld,
                        d_labels, classes, n, grad_scale));
  CUDA_CHECK_KERNEL("xent_kernel");
  return 0;
}
