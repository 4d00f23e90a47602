/* sgd_fp8.cu: SGD writing the FP8 weights in both layouts (sgd_fp8.h). */
#include <stdint.h>
#include <stdio.h>

#include "gpu/gpu_check.h"
#include "gpu/gpu_launch.cuh"
#include "layers/fp8_device.cuh"
#include "layers/sgd_fp8.h"
#include "layers/sgd_step.cuh"
#include "lt/lt_types.cuh"

/* A TILE x TILE tile, SGD_THREADS threads: thread t updates rows
 * 4 (t % 16) .. + 3 of columns t / 16 + 16 i, i < 4. */
enum {
  SGD_THREADS = 256,
  TILE = 64,
  QUADS = TILE / 4,
  COLUMN_STEP = SGD_THREADS / QUADS
};

static __host__ __device__ int tiles_of(const sgd_fp8_matrix &m) {
  return ((m.rows + TILE - 1) / TILE) * ((m.cols + TILE - 1) / TILE);
}

static __device__ void update_tile(const sgd_fp8_args &a,
                                   const sgd_fp8_matrix &m, int tile, float lr,
                                   float momentum, float unscale) {
  __shared__ __align__(4) uint8_t codes[TILE][TILE + 4]; /* [column][row] */
  int row_tiles = (m.rows + TILE - 1) / TILE;
  int r0 = (tile % row_tiles) * TILE, c0 = (tile / row_tiles) * TILE;
  float scale = m.d_meta->scale; /* the roll's, once per step */
  bool velocity = a.slabs.d_velocity != NULL;
  int rq = 4 * (threadIdx.x % QUADS), r = r0 + rq;
  float amax = 0.0f;
  unsigned saturated = 0, flushed = 0, nan = 0;
  for (int i = 0; i < TILE / COLUMN_STEP; i++) {
    int cl = threadIdx.x / QUADS + COLUMN_STEP * i, c = c0 + cl;
    uint32_t packed = 0;
    if (r < m.rows && c < m.cols) {
      size_t at = m.offset + (size_t)c * m.ld + r;
      float4 p4 = *(float4 *)(a.slabs.d_params + at);
      float4 v4 = velocity ? *(float4 *)(a.slabs.d_velocity + at)
                           : make_float4(0, 0, 0, 0);
      uint2 g2 = *(const uint2 *)((const __nv_bfloat16 *)a.slabs.d_grads + at);
      const __nv_bfloat16 *g = (const __nv_bfloat16 *)&g2;
      float *p = (float *)&p4, *v = (float *)&v4;
      for (int k = 0; k < 4; k++) {
        p[k] = sgd_step(p[k], &v[k], __bfloat162float(g[k]), lr, momentum,
                        unscale, velocity);
        float x = p[k], q = x * scale;
        uint8_t code = fp8_encode_device(q, LT_FP8_E4M3);
        amax = fmaxf(amax, fabsf(x));
        saturated += fp8_saturates(q, LT_FP8_E4M3);
        nan += isnan(q) ? 1u : 0u;
        flushed += x != 0.0f && isfinite(x) && (code & 0x7F) == 0;
        packed |= (uint32_t)code << (8 * k);
      }
      *(float4 *)(a.slabs.d_params + at) = p4;
      if (velocity) *(float4 *)(a.slabs.d_velocity + at) = v4;
      *(uint32_t *)(m.d_w8 + (size_t)c * m.ld_w8 + r) = packed;
    }
    *(uint32_t *)&codes[cl][rq] = packed;
  }
  /* ends synchronised: the shared tile is complete */
  fp8_block_record(m.d_meta, true, amax, saturated, flushed, nan);
  if (m.d_w8t) {
    int cq = 4 * (threadIdx.x % QUADS), c = c0 + cq;
    for (int i = 0; i < TILE / COLUMN_STEP; i++) {
      int rl = threadIdx.x / QUADS + COLUMN_STEP * i, rr = r0 + rl;
      if (rr >= m.rows || c >= m.cols) continue;
      *(uint32_t *)(m.d_w8t + (size_t)rr * m.ld_w8t + c) =
          (uint32_t)codes[cq][rl] | (uint32_t)codes[cq + 1][rl] << 8 |
          (uint32_t)codes[cq + 2][rl] << 16 | (uint32_t)codes[cq + 3][rl] << 24;
    }
  }
  if (tile == 0 && threadIdx.x == 0) {
    m.d_meta->scale_inv = 1.0f / scale;
    m.d_meta->casts += 1;
  }
}

/* Element `index` of vector v: its gradient (from the partials, written
 * into the slab as BF16, or read there), then the step. */
static __device__ void update_element(const sgd_fp8_args &a,
                                      const sgd_fp8_vector &v, int index,
                                      float lr, float momentum, float unscale) {
  size_t at = v.offset + (size_t)index;
  __nv_bfloat16 *grads = (__nv_bfloat16 *)a.slabs.d_grads;
  if (v.d_partials) {
    float sum = 0.0f;
    for (int t = 0; t < v.tiles; t++)
      sum += v.d_partials[(size_t)t * v.length + index];
    grads[at] = __float2bfloat16_rn(sum);
  }
  bool velocity = a.slabs.d_velocity != NULL;
  float velocity_now = velocity ? a.slabs.d_velocity[at] : 0.0f;
  float p =
      sgd_step(a.slabs.d_params[at], &velocity_now, __bfloat162float(grads[at]),
               lr, momentum, unscale, velocity);
  a.slabs.d_params[at] = p;
  if (velocity) a.slabs.d_velocity[at] = velocity_now;
  ((__nv_bfloat16 *)a.slabs.d_copy)[at] = __float2bfloat16_rn(p);
}

/* Block `block`'s share: a matrix tile, or SGD_THREADS vector elements. */
static __device__ void update_block(const sgd_fp8_args &a, int block, float lr,
                                    float momentum, float unscale) {
  for (int i = 0; i < a.matrices; i++) {
    int tiles = tiles_of(a.m[i]);
    if (block < tiles) {
      update_tile(a, a.m[i], block, lr, momentum, unscale);
      return;
    }
    block -= tiles;
  }
  int index = block * SGD_THREADS + threadIdx.x;
  for (int i = 0; i < a.vectors; i++) {
    if (index < a.v[i].length) {
      update_element(a, a.v[i], index, lr, momentum, unscale);
      return;
    }
    index -= a.v[i].length;
  }
}

__global__ void sgd_fp8_kernel(sgd_fp8_args a, const float *d_lr,
                               float momentum, float unscale, int trigger) {
  gpu_wait_previous();
  gpu_allow_next(trigger);
  __shared__ bool last;
  update_block(a, blockIdx.x, *d_lr, momentum, unscale);
  if (!a.roll.d_meta) return;
  /* The last block to finish rolls, every amax recorded (the programming
   * guide's threadFenceReduction: atomics, a fence, the counter). */
  __syncthreads();
  if (threadIdx.x == 0) {
    __threadfence();
    last = atomicAdd(a.d_finished, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  fp8_roll_block(a.roll);
  if (threadIdx.x == 0) *a.d_finished = 0;
}

extern "C" int sgd_fp8_update(const sgd_fp8_args *a, const float *d_lr,
                              float momentum, float grad_unscale,
                              gpu_early_cache *early, cudaStream_t stream) {
  int blocks = 0, elements = 0;
  if (a->roll.d_meta && !a->d_finished) {
    fprintf(stderr, "sgd_fp8: expected a block counter with the roll\n");
    return -1;
  }
  for (int i = 0; i < a->matrices; i++) {
    const sgd_fp8_matrix *m = &a->m[i];
    if (m->offset % 4 || m->ld % 4 || m->ld_w8 % 4 || m->rows % 4 ||
        m->cols % 4 || (m->d_w8t && m->ld_w8t % 4)) {
      fprintf(stderr,
              "sgd_fp8: expected rows, columns, offsets and leading "
              "dimensions that are multiples of 4 (matrix %d: %d x %d, "
              "offset %zu, ld %d, %d, %d)\n",
              i, m->rows, m->cols, m->offset, m->ld, m->ld_w8, m->ld_w8t);
      return -1;
    }
    blocks += tiles_of(*m);
  }
  for (int i = 0; i < a->vectors; i++)
    elements += a->v[i].length;
  blocks += (elements + SGD_THREADS - 1) / SGD_THREADS;
  if (a->slabs.type != LT_DTYPE_BF16 || !a->slabs.d_copy || blocks < 1) {
    fprintf(stderr, "sgd_fp8: expected BF16 gradients, a BF16 copy and work\n");
    return -1;
  }
  sgd_fp8_args args = *a;
  args.slabs.d_velocity = momentum != 0.0f ? a->slabs.d_velocity : NULL;
  CUDA_CHECK(gpu_launch(early, sgd_fp8_kernel, dim3((unsigned)blocks),
                        dim3(SGD_THREADS), stream, args, d_lr, momentum,
                        grad_unscale, gpu_early_trigger(early)));
  CUDA_CHECK_KERNEL("sgd_fp8_kernel");
  return 0;
}
