/* lt_types.cuh: the storage types of lt_dtype (lt_shape.h) on the device,
 * for the kernels that read and write them (the unfused twin, the
 * comparisons, the loss, SGD, the batch gather): conversion to and from
 * float, and LT_DISPATCH to instantiate a kernel launch for each type.
 * Arithmetic is always in float; a value is rounded to the storage type
 * once, when it is stored (round to nearest even, as cuBLASLt's epilogue). */
#ifndef MNIST_EPILOGS_LT_TYPES_CUH
#define MNIST_EPILOGS_LT_TYPES_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include "lt/lt_shape.h"

__device__ __forceinline__ float lt_to_float(float x) {
  return x;
}
__device__ __forceinline__ float lt_to_float(__nv_bfloat16 x) {
  return __bfloat162float(x);
}
__device__ __forceinline__ float lt_to_float(__half x) {
  return __half2float(x);
}

template <typename T> __device__ __forceinline__ T lt_from_float(float x);
template <> __device__ __forceinline__ float lt_from_float<float>(float x) {
  return x;
}
template <>
__device__ __forceinline__ __nv_bfloat16 lt_from_float<__nv_bfloat16>(float x) {
  return __float2bfloat16_rn(x);
}
template <> __device__ __forceinline__ __half lt_from_float<__half>(float x) {
  return __float2half_rn(x);
}

/* The stored bits, to compare two values bit for bit. */
__device__ __forceinline__ uint32_t lt_bits(float x) {
  return __float_as_uint(x);
}
__device__ __forceinline__ uint32_t lt_bits(__nv_bfloat16 x) {
  return __bfloat16_as_ushort(x);
}
__device__ __forceinline__ uint32_t lt_bits(__half x) {
  return __half_as_ushort(x);
}

/* Runs `launch` (a generic lambda-free macro body using the type name T)
 * for the storage type `type`: LT_DISPATCH(type, { kernel<T><<<...>>>(); }) */
#define LT_DISPATCH(type, ...)                                                 \
  do {                                                                         \
    switch (type) {                                                            \
    case LT_DTYPE_BF16: {                                                      \
      typedef __nv_bfloat16 T;                                                 \
      __VA_ARGS__;                                                             \
      break;                                                                   \
    }                                                                          \
    case LT_DTYPE_F16: {                                                       \
      typedef __half T;                                                        \
      __VA_ARGS__;                                                             \
      break;                                                                   \
    }                                                                          \
    default: {                                                                 \
      typedef float T;                                                         \
      __VA_ARGS__;                                                             \
      break;                                                                   \
    }                                                                          \
    }                                                                          \
  } while (0)

#endif
