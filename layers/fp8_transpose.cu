/* fp8_transpose.cu: the FP8 step's transpose of FP8 codes and the roll of
 * the scaling histories (fp8_cast.h). The transpose keeps the cast's tile
 * (layers/fp8_tile.cuh) at 64 rows, 16 a thread, loads of 16 codes. */
#include <stdio.h>

#include "gpu/gpu_check.h"
#include "gpu/gpu_launch.cuh"
#include "layers/fp8_cast.h"
#include "layers/fp8_device.cuh"
#include "layers/fp8_tile.cuh"

enum { ROWS = 64, COLS = FP8_TILE_COLS, THREADS = FP8_TILE_THREADS };

__global__ void __launch_bounds__(THREADS)
    fp8_transpose_kernel(uint8_t *out_t, int ld_t, const uint8_t *in, int ld,
                         int rows, int cols, size_t stride_in,
                         size_t stride_out) {
  gpu_wait_previous();
  __shared__ __align__(16) uint8_t tile_t[ROWS][COLS];
  in += (size_t)blockIdx.z * stride_in;
  out_t += (size_t)blockIdx.z * stride_out;
  int rg = threadIdx.x % 4, cq = threadIdx.x / 4;
  int r = blockIdx.x * ROWS + 16 * rg, c0 = blockIdx.y * COLS + 4 * cq;
  uint4 w[4];
#pragma unroll
  for (int j = 0; j < 4; j++)
    w[j] = r < rows && c0 + j < cols
               ? *(const uint4 *)(in + (size_t)(c0 + j) * ld + r)
               : make_uint4(0, 0, 0, 0);
#pragma unroll
  for (int k = 0; k < 4; k++) {
    uint32_t c[4] = {((const uint32_t *)&w[0])[k], ((const uint32_t *)&w[1])[k],
                     ((const uint32_t *)&w[2])[k],
                     ((const uint32_t *)&w[3])[k]};
    fp8_stage_words<ROWS>(tile_t, c, 16 * rg + 4 * k, cq);
  }
  __syncthreads();
  fp8_write_transposed<ROWS>(out_t, ld_t, tile_t, rows, cols, blockIdx.x,
                             blockIdx.y);
}

extern "C" int fp8_transpose(uint8_t *d_out_t, int ld_out_t,
                             const uint8_t *d_in, int ld_in, int rows, int cols,
                             int count, size_t stride_in, size_t stride_out,
                             gpu_early_cache *early, cudaStream_t stream) {
  if (rows < 16 || rows % 16 || cols < 1 || count < 1 || ld_in % 16 ||
      ld_in < rows || ld_out_t % 16 || ld_out_t < fp8_round16(cols) ||
      !fp8_aligned16(d_in) || !fp8_aligned16(d_out_t) || stride_in % 16 ||
      stride_out % 16) {
    fprintf(stderr,
            "fp8_transpose: expected rows a multiple of 16, 16-byte aligned "
            "matrices and leading dimensions (ld_in >= rows, ld_out_t >= "
            "cols rounded up to 16), found %d x %d, ld %d, ld_t %d, %d of "
            "them\n",
            rows, cols, ld_in, ld_out_t, count);
    return -1;
  }
  dim3 grid((unsigned)((rows + ROWS - 1) / ROWS),
            (unsigned)fp8_cast_tiles(fp8_round16(cols)), (unsigned)count);
  CUDA_CHECK(gpu_launch(early, fp8_transpose_kernel, grid, dim3(THREADS),
                        stream, d_out_t, ld_out_t, d_in, ld_in, rows, cols,
                        stride_in, stride_out));
  CUDA_CHECK_KERNEL("fp8_transpose_kernel");
  return 0;
}

__global__ void fp8_roll_kernel(fp8_roll_args a) {
  gpu_wait_previous();
  fp8_roll_block(a);
}

extern "C" int fp8_roll(const fp8_roll_args *a, gpu_early_cache *early,
                        cudaStream_t stream) {
  CUDA_CHECK(gpu_launch(early, fp8_roll_kernel, dim3(1), dim3(64), stream, *a));
  CUDA_CHECK_KERNEL("fp8_roll_kernel");
  return 0;
}
