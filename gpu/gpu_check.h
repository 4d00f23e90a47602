/* gpu_check.h: status checks for CUDA, cuBLASLt and cuRAND calls.
 *
 * Each macro evaluates its call once; on failure it prints file:line, the
 * statement and the library's own status name and text to stderr, then
 * returns -1 from the enclosing function (which must return int). Only app/
 * exits; everything below reports upwards. gpu_check.c holds the cuRAND
 * status names (cuRAND has no function for them).
 */
#ifndef MNIST_EPILOGS_GPU_CHECK_H
#define MNIST_EPILOGS_GPU_CHECK_H

#include <cublasLt.h>
#include <cuda_runtime_api.h>
#include <curand.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The enum name of a cuRAND status ("CURAND_STATUS_..."). */
const char *gpu_curand_status_name(curandStatus_t status);

#ifdef __cplusplus
}
#endif

#define CUDA_CHECK(call)                                                       \
  do {                                                                         \
    cudaError_t status_ = (call);                                              \
    if (status_ != cudaSuccess) {                                              \
      fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__,       \
              #call, cudaGetErrorName(status_), cudaGetErrorString(status_));  \
      return -1;                                                               \
    }                                                                          \
  } while (0)

#define CUBLAS_CHECK(call)                                                     \
  do {                                                                         \
    cublasStatus_t status_ = (call);                                           \
    if (status_ != CUBLAS_STATUS_SUCCESS) {                                    \
      fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__,       \
              #call, cublasLtGetStatusName(status_),                           \
              cublasLtGetStatusString(status_));                               \
      return -1;                                                               \
    }                                                                          \
  } while (0)

#define CURAND_CHECK(call)                                                     \
  do {                                                                         \
    curandStatus_t status_ = (call);                                           \
    if (status_ != CURAND_STATUS_SUCCESS) {                                    \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,     \
              gpu_curand_status_name(status_));                                \
      return -1;                                                               \
    }                                                                          \
  } while (0)

/* After every kernel launch: launch-configuration errors show up here,
 * named by the kernel. */
#define CUDA_CHECK_KERNEL(name)                                                \
  do {                                                                         \
    cudaError_t status_ = cudaGetLastError();                                  \
    if (status_ != cudaSuccess) {                                              \
      fprintf(stderr, "%s:%d: launch of %s failed: %s (%s)\n", __FILE__,       \
              __LINE__, name, cudaGetErrorName(status_),                       \
              cudaGetErrorString(status_));                                    \
      return -1;                                                               \
    }                                                                          \
  } while (0)

#endif
