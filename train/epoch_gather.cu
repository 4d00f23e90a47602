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

/* One warp per sample, GATHER_WARPS samples a block; a lane converts
 * 16 / sizeof(T) pixels at a time, loaded as one vector and stored as one
 * 16-byte vector, so that a warp's loads and stores are each one
 * contiguous run. (One block of 256 threads per sample, a thread a pixel,
 * took 136-141 us an epoch of 60 000 FP32 samples on the H200, this 67-72;
 * BF16 126-130 and 45-49: docs/performance.md, the FP8 section's Session
 * 12.) Needs features a multiple of GATHER_CHUNK and every row 16-byte
 * aligned (gather_vectors_fit: MNIST's 784 pixels are 49 chunks).
 *   images  (count of the split, features) row-major bytes, as loaded
 *   order   [count]: the sample at each position of the epoch
 *   x       batch b at x + b * batch_stride: (features, batch) col-major
 *           of T, ld `ld`; y [count]: labels in the same order */
enum { GATHER_THREADS = 256, GATHER_WARPS = GATHER_THREADS / 32 };
enum { GATHER_CHUNK = 16 };

/* The load of `pixels` bytes as one vector. */
template <int pixels> struct pixel_vector;
template <> struct pixel_vector<4> { typedef uint32_t type; };
template <> struct pixel_vector<8> { typedef uint2 type; };

template <typename T, typename Store>
__global__ void gather_vector_kernel(T *x, int *y, const uint8_t *images,
                                     const uint8_t *labels, const int *order,
                                     int count, int batch, size_t batch_stride,
                                     int features, int ld, float scale,
                                     float shift, Store store) {
  enum { PIXELS = 16 / sizeof(T) };
  typedef typename pixel_vector<PIXELS>::type load_t;
  int j = blockIdx.x * GATHER_WARPS + threadIdx.x / 32, lane = threadIdx.x % 32;
  if (j >= count) return;
  int sample = order[j];
  const load_t *src = (const load_t *)(images + (size_t)sample * features);
  uint4 *dst = (uint4 *)(x + (size_t)(j / batch) * batch_stride +
                         (size_t)(j % batch) * ld);
  for (int c = lane; c < features / PIXELS; c += 32) {
    union {
      load_t vector;
      uint8_t bytes[PIXELS];
    } pixels;
    pixels.vector = src[c];
    uint4 out; /* PIXELS values of T */
    T *values = (T *)&out;
#pragma unroll
    for (int k = 0; k < PIXELS; k++)
      values[k] = store(__fmaf_rn((float)pixels.bytes[k], scale, shift));
    dst[c] = out;
  }
  if (lane == 0) y[j] = labels[sample];
}

/* 1 when gather_vector_kernel can take the rows: whole chunks, and every
 * source and destination row on a 16-byte boundary. */
static bool gather_vectors_fit(const void *x, const uint8_t *images,
                               int features, int ld, size_t batch_stride,
                               size_t element) {
  return features % GATHER_CHUNK == 0 && (uintptr_t)x % 16 == 0 &&
         (uintptr_t)images % 16 == 0 && ((size_t)ld * element) % 16 == 0 &&
         (batch_stride * element) % 16 == 0;
}

/* The gather of `count` samples; -1 (message on stderr) for rows it
 * cannot take. */
template <typename T, typename Store>
static int gather_launch(T *x, int *y, const uint8_t *images,
                         const uint8_t *labels, const int *order, int count,
                         int batch, size_t batch_stride, int features, int ld,
                         float scale, float shift, Store store,
                         cudaStream_t stream) {
  if (!gather_vectors_fit(x, images, features, ld, batch_stride, sizeof(T))) {
    fprintf(stderr,
            "epoch_gather: expected %d-pixel chunks of images and 16-byte "
            "aligned rows of %zu-byte values, found %d pixels, ld %d, a batch "
            "stride of %zu values, batches at %p, images at %p\n",
            GATHER_CHUNK, sizeof(T), features, ld, batch_stride, (void *)x,
            (const void *)images);
    return -1;
  }
  if (count < 1) return 0;
  gather_vector_kernel<T>
      <<<(count + GATHER_WARPS - 1) / GATHER_WARPS, GATHER_THREADS, 0,
         stream>>>(x, y, images, labels, order, count, batch, batch_stride,
                   features, ld, scale, shift, store);
  return 0;
}

extern "C" int epoch_gather_batches(lt_dtype type, void *d_x, int *d_y,
                                    const uint8_t *d_images,
                                    const uint8_t *d_labels, const int *d_order,
                                    int count, int batch, size_t batch_stride,
                                    int features, float scale, float shift,
                                    cudaStream_t stream) {
  int status = 0;
  LT_DISPATCH(type, status = gather_launch((T *)d_x, d_y, d_images, d_labels,
                                           d_order, count, batch, batch_stride,
                                           features, lt_ld(features), scale,
                                           shift, stored_as<T>(), stream));
  if (status != 0) return -1;
  CUDA_CHECK_KERNEL("gather_vector_kernel");
  return 0;
}

/* The FP8 gather: a block per GATHER_TILE consecutive samples of one
 * batch (`first_tiles` blocks for the full batches, then the last partial
 * batch's). Each warp encodes its samples' pixels a 16-byte chunk a lane,
 * stores them in X8 and in a shared tile; then each thread writes 16
 * samples of one pixel's row of X8T as one 16-byte store, the padding
 * samples' codes zero. (X8T was a transpose pass of its own: 29 us an
 * epoch of 60 000 samples on the H200, the gather before it 123; this
 * kernel, both, 58.5: docs/performance.md, the FP8 section's Session 12.)
 * Shared memory: GATHER_TILE x features bytes.
 *   images, order, y  as gather_vector_kernel's
 *   x       batch b's block at x + b * g.batch_bytes (mlp_fp8.h): X8
 *           (features, n) col-major E4M3, ld features, at
 *           MLP_FP8_BATCH_X8; X8T (lt_ld_fp8(n), features) col-major, ld
 *           lt_ld_fp8(n), at g.x8t_full or g.x8t_last */
enum { GATHER_TILE = 32, GATHER_HALF = GATHER_TILE / 2 };

typedef struct gather_fp8_batches {
  int batch;          /* samples a full batch */
  size_t batch_bytes; /* between batch blocks */
  int first_tiles;    /* blocks of the full batches */
  int tiles_full;     /* blocks per full batch */
  int last;           /* samples of the last, partial batch (0: none) */
  size_t x8t_full;    /* X8T's offset in a full batch's block */
  size_t x8t_last;    /* in the last batch's */
} gather_fp8_batches;

__global__ void gather_fp8_kernel(uint8_t *x, int *y, const uint8_t *images,
                                  const uint8_t *labels, const int *order,
                                  gather_fp8_batches g, int features,
                                  float scale, float shift, stored_e4m3 store) {
  extern __shared__ uint4 tile_chunks[]; /* [GATHER_TILE][features / 16] */
  int b = blockIdx.x < g.first_tiles ? blockIdx.x / g.tiles_full
                                     : g.first_tiles / g.tiles_full;
  int t = blockIdx.x < g.first_tiles ? blockIdx.x % g.tiles_full
                                     : blockIdx.x - g.first_tiles;
  bool full = blockIdx.x < g.first_tiles;
  int n = full ? g.batch : g.last, ld_t = (n + 15) / 16 * 16;
  uint8_t *block = x + (size_t)b * g.batch_bytes;
  uint8_t *x8 = block + MLP_FP8_BATCH_X8;
  uint8_t *x8t = block + (full ? g.x8t_full : g.x8t_last);
  int chunks = features / GATHER_CHUNK, j0 = t * GATHER_TILE;
  int lane = threadIdx.x % 32;
  for (int s = threadIdx.x / 32; s < GATHER_TILE; s += GATHER_WARPS) {
    int j = j0 + s, at = b * g.batch + j;
    bool sample = j < n;
    int from = sample ? order[at] : 0;
    const uint4 *src = (const uint4 *)(images + (size_t)from * features);
    for (int c = lane; c < chunks; c += 32) {
      union {
        uint4 vector;
        uint8_t bytes[GATHER_CHUNK];
      } pixels, codes;
      codes.vector = make_uint4(0, 0, 0, 0);
      if (sample) {
        pixels.vector = src[c];
#pragma unroll
        for (int k = 0; k < GATHER_CHUNK; k++)
          codes.bytes[k] =
              store(__fmaf_rn((float)pixels.bytes[k], scale, shift));
        ((uint4 *)(x8 + (size_t)j * features))[c] = codes.vector;
      }
      tile_chunks[s * chunks + c] = codes.vector;
    }
    if (sample && lane == 0) y[at] = labels[from];
  }
  __syncthreads();
  const uint8_t *codes = (const uint8_t *)tile_chunks;
  for (int u = threadIdx.x; u < 2 * features; u += blockDim.x) {
    int p = u / 2, half = u % 2, j = j0 + half * GATHER_HALF;
    if (j >= ld_t) continue;
    union {
      uint4 vector;
      uint8_t bytes[GATHER_HALF];
    } column;
#pragma unroll
    for (int i = 0; i < GATHER_HALF; i++)
      column.bytes[i] = codes[(size_t)(half * GATHER_HALF + i) * features + p];
    *(uint4 *)(x8t + (size_t)p * ld_t + j) = column.vector;
  }
}

extern "C" int epoch_gather_fp8(void *d_x, int *d_y, const uint8_t *d_images,
                                const uint8_t *d_labels, const int *d_order,
                                int count, int batch, size_t batch_bytes,
                                int features, float scale, float shift,
                                float fp8_scale, cudaStream_t stream) {
  uint8_t *x = (uint8_t *)d_x;
  size_t shared = (size_t)GATHER_TILE * (size_t)features;
  if (features % GATHER_CHUNK || lt_ld_fp8(features) != features ||
      (uintptr_t)x % 16 || (uintptr_t)d_images % 16 || batch_bytes % 16 ||
      shared > 48 * 1024) {
    fprintf(stderr,
            "epoch_gather_fp8: expected images of whole %d-pixel chunks, at "
            "most %d pixels, and 16-byte aligned batches, found %d pixels, "
            "batches %zu bytes apart at %p, images at %p\n",
            GATHER_CHUNK, 48 * 1024 / GATHER_TILE, features, batch_bytes,
            (void *)x, (const void *)d_images);
    return -1;
  }
  if (count < 1) return 0;
  gather_fp8_batches g;
  g.batch = batch;
  g.batch_bytes = batch_bytes;
  g.tiles_full = (lt_ld_fp8(batch) + GATHER_TILE - 1) / GATHER_TILE;
  g.first_tiles = count / batch * g.tiles_full;
  g.last = count % batch;
  g.x8t_full = mlp_fp8_batch_x8t(features, batch);
  g.x8t_last = g.last ? mlp_fp8_batch_x8t(features, g.last) : 0;
  int blocks =
      g.first_tiles +
      (g.last ? (lt_ld_fp8(g.last) + GATHER_TILE - 1) / GATHER_TILE : 0);
  gather_fp8_kernel<<<blocks, GATHER_THREADS, shared, stream>>>(
      x, d_y, d_images, d_labels, d_order, g, features, scale, shift,
      stored_e4m3{fp8_scale});
  CUDA_CHECK_KERNEL("gather_fp8_kernel");
  return 0;
}
