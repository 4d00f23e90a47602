/* fp8_nvidia.h: NVIDIA's own FP8 conversions from cuda_fp8.h, run on the
 * host (fp8_nvidia.cpp), as the reference tests/test_fp8.c holds
 * layers/fp8.c to. No GPU and no CUDA runtime call: the functions are
 * cuda_fp8.hpp's inline __host__ __device__ code. */
#ifndef MNIST_EPILOGS_FP8_NVIDIA_H
#define MNIST_EPILOGS_FP8_NVIDIA_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* __nv_cvt_float_to_fp8(x, __NV_SATFINITE, e5m2 ? __NV_E5M2 : __NV_E4M3). */
uint8_t fp8_nvidia_encode(float x, int e5m2);
/* __nv_cvt_fp8_to_halfraw, widened to float (exact). */
float fp8_nvidia_decode(uint8_t code, int e5m2);

#ifdef __cplusplus
}
#endif

#endif
