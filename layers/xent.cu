/* xent.cu: softmax cross-entropy, its gradient and the hit count (see
 * xent.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "gpu/gpu_check.h"
#include "gpu/gpu_launch.cuh"
#include "layers/fp8_device.cuh"
#include "layers/xent.h"
#include "lt/lt_types.cuh"

/* Batches of up to XENT_ONE_BLOCK samples run as one block, which writes
 * the sums itself; larger ones as blocks of XENT_THREADS, whose partials
 * the last block adds. (One block saves a fence, an atomic and a reread:
 * the loss kernel was 6 us of a 25 us step at 784-100-10; issue 9.) */
enum { XENT_THREADS = 128, XENT_ONE_BLOCK = 1024, XENT_MAX_WARPS = 32 };

static int xent_threads(int n) {
  return n <= XENT_ONE_BLOCK ? (n + 31) / 32 * 32 : XENT_THREADS;
}

/* The scratch: a counter of finished blocks, then one partial per block. */
typedef struct xent_partial {
  double loss;
  double correct;
} xent_partial;

extern "C" size_t xent_scratch_bytes(int max_n) {
  if (max_n < 1) max_n = 1;
  int threads = xent_threads(max_n);
  size_t blocks = ((size_t)max_n + threads - 1) / threads;
  return sizeof(xent_partial) * (blocks + 1);
}

/* Over one sample's logits z[0 .. classes): the largest (*zmax), the
 * first class that has it (*argmax, as the hit count and predictions take
 * it), and the softmax denominator sum exp(z - zmax), in FP32. */
template <typename T>
__device__ __forceinline__ float softmax_sum(const T *z, int classes,
                                             float *zmax, int *argmax) {
  float top = lt_to_float(z[0]);
  int at = 0;
  for (int c = 1; c < classes; c++)
    if (lt_to_float(z[c]) > top) {
      top = lt_to_float(z[c]);
      at = c;
    }
  float sum = 0.0f;
  for (int c = 0; c < classes; c++)
    sum += expf(lt_to_float(z[c]) - top);
  *zmax = top;
  *argmax = at;
  return sum;
}

/* Row r of sample j's gradient as stored in T: (softmax - onehot) *
 * scale, 0 past the classes and the batch. */
template <typename T>
__device__ __forceinline__ float
gradient_of(const T *z, float zmax, float log_sum, int label, int classes,
            float scale, int r, bool sample) {
  if (!sample || r >= classes) return 0.0f;
  float p = expf(lt_to_float(z[r]) - zmax - log_sum);
  return lt_to_float(
      lt_from_float<T>((p - (r == label ? 1.0f : 0.0f)) * scale));
}

/* The bias gradient's partial sums of rows r0 .. r0 + count - 1 (v[i]:
 * this thread's value of row r0 + i; count <= 16, the same in the block)
 * over each tile of FP8_CAST_TILE samples (4 warps of the block, or the
 * whole block of 128), in a fixed order: per row a warp's lanes by xor
 * shuffles, then the tile's warps in order. Two barriers per 16 rows (it
 * was two per row: the loss kernel took 13.5 us of the big network's FP8
 * step). Every thread calls it. */
static __device__ void cast_partials(const xent_fp8 &c, float v[16], int r0,
                                     int count, int n) {
  __shared__ float warp_sum[XENT_MAX_WARPS][16]; /* [warp][row r0 + i] */
#pragma unroll
  for (int i = 0; i < 16; i++)
    if (i < count)
      for (int o = 16; o > 0; o /= 2)
        v[i] += __shfl_xor_sync(0xffffffffu, v[i], o);
  if (threadIdx.x % 32 == 0)
#pragma unroll
    for (int i = 0; i < 16; i++)
      if (i < count) warp_sum[threadIdx.x / 32][i] = v[i];
  __syncthreads();
  int per_tile = FP8_CAST_TILE / 32, warps = blockDim.x / 32;
  int first = blockIdx.x * blockDim.x / FP8_CAST_TILE;
  int tiles = (warps + per_tile - 1) / per_tile;
  for (int q = threadIdx.x; q < tiles * count; q += blockDim.x) {
    int t = q / count, i = q % count;
    if (first + t >= fp8_cast_tiles(n)) continue;
    float total = 0.0f;
    for (int w = t * per_tile; w < (t + 1) * per_tile && w < warps; w++)
      total += warp_sum[w][i];
    c.d_partials[(size_t)(first + t) * c.rows + r0 + i] = total;
  }
  __syncthreads();
}

/* Sample j's gradient column cast into the FP8 copies (xent_fp8): codes
 * of rows r0 .. r0 + 15 in one 16-byte store of dZ8, and a byte each of
 * dZ8T (the warp's stores contiguous), the padding samples' zero; its
 * partial sums, amax and counts. Every thread of the block calls it. */
template <typename T>
__device__ void cast_column(const xent_fp8 &c, const T *z, float zmax,
                            float log_sum, int label, int classes,
                            float grad_scale, int j, int n) {
  float s = *c.d_scale, amax = 0.0f;
  unsigned saturated = 0, flushed = 0, nan = 0;
  bool sample = j < n, column = j < (n + 15) / 16 * 16;
  for (int r0 = 0; r0 < c.rows; r0 += 16) {
    union {
      uint4 vector;
      uint8_t bytes[16];
    } codes;
    float v[16];
#pragma unroll
    for (int i = 0; i < 16; i++) {
      int r = r0 + i;
      v[i] =
          gradient_of(z, zmax, log_sum, label, classes, grad_scale, r, sample);
      codes.bytes[i] = fp8_encode_device(v[i] * s, c.format);
      amax = fmaxf(amax, fabsf(v[i]));
      saturated += fp8_saturates(v[i] * s, c.format);
      nan += isnan(v[i] * s) ? 1u : 0u;
      flushed += v[i] != 0.0f && isfinite(v[i]) && (codes.bytes[i] & 0x7F) == 0;
      if (column) c.d_dz8t[(size_t)r * c.ld_t + j] = codes.bytes[i];
    }
    if (r0 < classes)
      cast_partials(c, v, r0, classes - r0 < 16 ? classes - r0 : 16, n);
    if (c.d_dz8 && sample)
      *(uint4 *)(c.d_dz8 + (size_t)j * c.rows + r0) = codes.vector;
  }
  int tile = blockIdx.x * blockDim.x / FP8_CAST_TILE + threadIdx.x;
  if (threadIdx.x * FP8_CAST_TILE < blockDim.x && tile < fp8_cast_tiles(n))
    for (int r = classes; r < c.rows; r++)
      c.d_partials[(size_t)tile * c.rows + r] = 0.0f;
  fp8_block_record(c.d_meta, true, amax, saturated, flushed, nan);
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    c.d_meta->scale_inv = 1.0f / s;
    c.d_meta->casts += 1;
  }
}

/* The last block's sum of every block's partial into stats, in block
 * order: the block's threads load a chunk of XENT_THREADS partials
 * together (through the L2: other blocks wrote them), then thread 0 adds
 * the chunk in order. (Thread 0 loading them one after another waited on
 * each load in turn: 32 round trips to the L2 at batch 4096.) Resets the
 * counter. Every thread of the block calls it (a grid of several blocks
 * has XENT_THREADS threads a block: xent_threads). */
static __device__ void add_partials(double *stats, xent_partial *partials,
                                    unsigned *finished) {
  __shared__ xent_partial chunk[XENT_THREADS];
  __threadfence();
  double total_loss = 0.0, total_correct = 0.0;
  for (unsigned b0 = 0; b0 < gridDim.x; b0 += XENT_THREADS) {
    unsigned b = b0 + threadIdx.x;
    if (threadIdx.x < XENT_THREADS && b < gridDim.x) {
      chunk[threadIdx.x].loss = ((volatile xent_partial *)partials)[b].loss;
      chunk[threadIdx.x].correct =
          ((volatile xent_partial *)partials)[b].correct;
    }
    __syncthreads();
    if (threadIdx.x == 0)
      for (unsigned i = 0; i < XENT_THREADS && b0 + i < gridDim.x; i++) {
        total_loss += chunk[i].loss;
        total_correct += chunk[i].correct;
      }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    stats[0] += total_loss;
    stats[1] += total_correct;
    *finished = 0;
  }
}

/* One thread per sample, xent_threads(n) per block. Each block reduces its
 * loss and hit count with warp shuffles and adds the warp sums in warp
 * order; a lone block adds them to stats; otherwise each block writes its
 * partial and the last block to finish (a counter, after a fence) adds the
 * partials in block order and resets the counter. Every sum has a fixed
 * order (set by n), so the result is deterministic. */
template <typename T>
__global__ void xent_kernel(T *__restrict__ dlogits, double *stats,
                            const T *__restrict__ logits, int ld,
                            const int *labels, int classes, int n,
                            float grad_scale, xent_partial *scratch,
                            xent_fp8 cast, int trigger) {
  gpu_wait_previous();
  gpu_allow_next(trigger);
  __shared__ double loss_part[XENT_MAX_WARPS];
  __shared__ int correct_part[XENT_MAX_WARPS];
  __shared__ bool last;
  unsigned *finished = (unsigned *)scratch;
  xent_partial *partials = scratch + 1;
  double loss = 0.0;
  int correct = 0;
  float scale = grad_scale / (float)n;
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  const T *z = logits + (size_t)j * ld;
  float zmax = 0.0f, log_sum = 0.0f;
  int label = 0;
  if (j < n) {
    label = labels[j];
    int argmax;
    log_sum = logf(softmax_sum(z, classes, &zmax, &argmax));
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
  if (cast.d_meta)
    cast_column(cast, z, zmax, log_sum, label, classes, scale, j, n);
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
    for (int w = 0; w < (int)blockDim.x / 32; w++) {
      mine.loss += loss_part[w];
      mine.correct += (double)correct_part[w];
    }
    if (gridDim.x == 1) { /* the whole batch: no partials */
      stats[0] += mine.loss;
      stats[1] += mine.correct;
    } else {
      partials[blockIdx.x] = mine;
      __threadfence();
      last = atomicAdd(finished, 1u) == gridDim.x - 1;
    }
  }
  if (gridDim.x == 1) return; /* the same for every thread of the block */
  __syncthreads();
  if (last) /* the same for every thread of the block */
    add_partials(stats, partials, finished);
}

extern "C" int xent_loss_grad_cast(lt_dtype type, void *d_dlogits,
                                   double *d_stats, const void *d_logits,
                                   int ld, const int *d_labels, int classes,
                                   int n, float grad_scale, void *d_scratch,
                                   const xent_fp8 *cast, gpu_early_cache *early,
                                   cudaStream_t stream) {
  if (n < 1) {
    fprintf(stderr,
            "xent_loss_grad: expected a batch of at least 1, found %d\n", n);
    return -1;
  }
  xent_fp8 none;
  memset(&none, 0, sizeof none);
  if (cast && (cast->rows < classes || cast->rows % 16 || !cast->d_dz8t ||
               !cast->d_partials || !cast->d_scale || !cast->d_meta ||
               cast->ld_t < (n + 15) / 16 * 16 || cast->ld_t % 16 ||
               (uintptr_t)cast->d_dz8 % 16)) {
    fprintf(stderr,
            "xent_loss_grad: expected an FP8 cast of rows a multiple of 16, "
            ">= the %d classes, with dZ8T (ld a multiple of 16, >= the "
            "batch), partials, scale and state, found %d rows, ld %d\n",
            classes, cast->rows, cast->ld_t);
    return -1;
  }
  int threads = xent_threads(n);
  int blocks = (n + threads - 1) / threads;
  LT_DISPATCH(type, gpu_launch(early, xent_kernel<T>, dim3(blocks),
                               dim3(threads), stream, (T *)d_dlogits, d_stats,
                               (const T *)d_logits, ld, d_labels, classes, n,
                               grad_scale, (xent_partial *)d_scratch,
                               cast ? *cast : none, gpu_early_trigger(early)));
  CUDA_CHECK_KERNEL("xent_kernel");
  return 0;
}

extern "C" int xent_loss_grad(lt_dtype type, void *d_dlogits, double *d_stats,
                              const void *d_logits, int ld, const int *d_labels,
                              int classes, int n, float grad_scale,
                              void *d_scratch, gpu_early_cache *early,
                              cudaStream_t stream) {
  return xent_loss_grad_cast(type, d_dlogits, d_stats, d_logits, ld, d_labels,
                             classes, n, grad_scale, d_scratch, NULL, early,
                             stream);
}

/* One thread per sample: argmax and, if wanted, the softmax in FP32. */
template <typename T>
__global__ void predict_kernel(int *pred, float *prob, const T *logits, int ld,
                               int classes, int n) {
  int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= n) return;
  const T *z = logits + (size_t)j * ld;
  float zmax;
  int argmax;
  float sum = softmax_sum(z, classes, &zmax, &argmax);
  pred[j] = argmax;
  if (!prob) return;
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
