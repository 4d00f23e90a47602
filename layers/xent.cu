/* xent.cu: softmax cross-entropy, its gradient and the hit count (see
 * xent.h). */
#include <math.h>
#include <stdio.h>

#include "../gpu/gpu_check.h"
#include "../gpu/lt_types.cuh"
#include "xent.h"

enum { XENT_THREADS = 128, XENT_WARPS = XENT_THREADS / 32 };

/* The scratch: a counter of finished blocks, then one partial per block. */
typedef struct xent_partial {
  double loss;
  double correct;
} xent_partial;

extern "C" size_t xent_scratch_bytes(int max_n) {
  size_t blocks = ((size_t)max_n + XENT_THREADS - 1) / XENT_THREADS;
  return sizeof(xent_partial) * (blocks + 1);
}

/* One thread per sample, XENT_THREADS per block. Each block reduces its
 * loss and hit count with warp shuffles and adds the warp sums in warp
 * order into its partial; the last block to finish (a counter, after a
 * fence) adds the partials in block order and resets the counter. Every
 * sum has a fixed order, so the result is deterministic. */
template <typename T>
__global__ void xent_kernel(T *dlogits, double *stats, const T *logits, int ld,
                            const int *labels, int classes, int n,
                            float grad_scale, xent_partial *scratch) {
  __shared__ double loss_part[XENT_WARPS];
  __shared__ int correct_part[XENT_WARPS];
  __shared__ bool last;
  unsigned *finished = (unsigned *)scratch;
  xent_partial *partials = scratch + 1;
  double loss = 0.0;
  int correct = 0;
  float scale = grad_scale / (float)n;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < n) {
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
    loss = (double)(log_sum - (lt_to_float(z[label]) - zmax));
    correct = argmax == label;
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
    xent_partial mine = {0.0, 0.0};
    for (int w = 0; w < XENT_WARPS; w++) {
      mine.loss += loss_part[w];
      mine.correct += (double)correct_part[w];
    }
    partials[blockIdx.x] = mine;
    __threadfence();
    last = atomicAdd(finished, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (last && threadIdx.x == 0) {
    __threadfence();
    double total_loss = 0.0, total_correct = 0.0;
    for (unsigned b = 0; b < gridDim.x; b++) {
      total_loss += ((volatile xent_partial *)partials)[b].loss;
      total_correct += ((volatile xent_partial *)partials)[b].correct;
    }
    stats[0] += total_loss;
    stats[1] += total_correct;
    *finished = 0;
  }
}

extern "C" int xent_loss_grad(lt_dtype type, void *d_dlogits, double *d_stats,
                              const void *d_logits, int ld, const int *d_labels,
                              int classes, int n, float grad_scale,
                              void *d_scratch, cudaStream_t stream) {
  int blocks = (n + XENT_THREADS - 1) / XENT_THREADS;
  LT_DISPATCH(type,
              xent_kernel<T><<<blocks, XENT_THREADS, 0, stream>>>(
                  (T *)d_dlogits, d_stats, (const T *)d_logits, ld, d_labels,
                  classes, n, grad_scale, (xent_partial *)d_scratch));
  CUDA_CHECK_KERNEL("xent_kernel");
  return 0;
}

/* One thread per sample: argmax and, if wanted, the softmax in FP32. */
template <typename T>
__global__ void predict_kernel(int *pred, float *prob, const T *logits, int ld,
                               int classes, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n) return;
  const T *z = logits + (size_t)j * ld;
  float zmax = lt_to_float(z[0]);
  int argmax = 0;
  for (int c = 1; c < classes; c++)
    if (lt_to_float(z[c]) > zmax) {
      zmax = lt_to_float(z[c]);
      argmax = c;
    }
  pred[j] = argmax;
  if (!prob) return;
  float sum = 0.0f;
  for (int c = 0; c < classes; c++)
    sum += expf(lt_to_float(z[c]) - zmax);
  for (int c = 0; c < classes; c++)
    prob[(size_t)j * classes + c] = expf(lt_to_float(z[c]) - zmax) / sum;
}

extern "C" int xent_predict(lt_dtype type, int *d_pred, float *d_prob,
                            const void *d_logits, int ld, int classes, int n,
                            cudaStream_t stream) {
  LT_DISPATCH(type, predict_kernel<T><<<(n + 127) / 128, 128, 0, stream>>>(
                        d_pred, d_prob, (const T *)d_logits, ld, classes, n));
  CUDA_CHECK_KERNEL("predict_kernel");
  return 0;
}
