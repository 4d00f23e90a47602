/* fp8_nvidia.cpp: cuda_fp8.h's conversions called from host code
 * (fp8_nvidia.h). C++ only because cuda_fp8.h is a C++ header: the host
 * compiler builds it with the CUDA include folder, and it links without
 * the CUDA runtime (cuda_fp8.hpp's host path is inline code: no GPU, no
 * library call, no fat binary to register as an nvcc object would). */
#include <cuda_fp8.h>

#include "tests/fp8_nvidia.h"

extern "C" uint8_t fp8_nvidia_encode(float x, int e5m2) {
  return (uint8_t)__nv_cvt_float_to_fp8(x, __NV_SATFINITE,
                                        e5m2 ? __NV_E5M2 : __NV_E4M3);
}

extern "C" float fp8_nvidia_decode(uint8_t code, int e5m2) {
  __half_raw raw = __nv_cvt_fp8_to_halfraw((__nv_fp8_storage_t)code,
                                           e5m2 ? __NV_E5M2 : __NV_E4M3);
  return __half2float(__half(raw));
}
