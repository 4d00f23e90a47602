/* xent.cu: softmax cross-entropy, its gradient and the hit count (see
 * xent.h). */
#include <math.h>
#include <stdio.h>

#include "../gpu/gpu_check.h"
#include "xent.h"

enum { XENT_THREADS = 256, XENT_WARPS = XENT_THREADS / 32 };

/* One block: thread t takes samples t, t + 256, ...; then loss and hit
 * count are reduced with warp shuffles and the 8 warp sums added by one
 * thread in warp order: a fixed order, so the result is deterministic. */
__global__ void xent_kernel(float *dlogits, double *stats, const float *logits,
                            const int *labels, int classes, int n) {
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
    for (int c = 0; c < classes; c++)
      sum += expf(z[c] - zmax);
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

extern "C" int xent_loss_grad(float *d_dlogits, double *d_stats,
                              const float *d_logits, const int *d_labels,
                              int classes, int n, cudaStream_t stream) {
  xent_kernel<<<1, XENT_THREADS, 0, stream>>>(d_dlogits, d_stats, d_logits,
                                              d_labels, classes, n);
  CUDA_CHECK_KERNEL("xent_kernel");
  return 0;
}
