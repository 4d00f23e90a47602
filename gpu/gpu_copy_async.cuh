/* gpu_copy_async.cuh: copies from global into shared memory that stay in
 * flight while the thread works (cp.async, sm_80 and later): a kernel
 * keeps several tiles' loads outstanding without a register for each
 * byte. A thread's copies are grouped (gpu_copies_commit) and waited for
 * group by group (gpu_copies_wait<N>: all but the newest N groups done);
 * after the wait the thread that issued a copy sees its bytes (another
 * thread, only after a barrier). Before sm_80 each copy is a plain load
 * and store, done at once, the commit and the wait no-ops: the same
 * bytes, no overlap. */
#ifndef MNIST_EPILOGS_GPU_COPY_ASYNC_CUH
#define MNIST_EPILOGS_GPU_COPY_ASYNC_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define GPU_COPY_ASYNC 1
#endif

/* BYTES (16 or 4) from `global` to `shared`, both BYTES-aligned; zeros
 * where `in` is false (the source then not read, but still aligned).
 * 16-byte copies bypass the L1 (.cg: streamed once); 4-byte ones cannot. */
template <int BYTES>
static __device__ __forceinline__ void
gpu_copy_async(void *shared, const void *global, bool in) {
  static_assert(BYTES == 16 || BYTES == 4, "cp.async: 16 or 4 bytes here");
#ifdef GPU_COPY_ASYNC
  unsigned to = (unsigned)__cvta_generic_to_shared(shared);
  int from_bytes = in ? BYTES : 0;
  if (BYTES == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(to),
                 "l"(global), "r"(from_bytes)
                 : "memory");
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(to),
                 "l"(global), "r"(from_bytes)
                 : "memory");
#else
  if (BYTES == 16)
    *(uint4 *)shared = in ? *(const uint4 *)global : make_uint4(0, 0, 0, 0);
  else
    *(uint32_t *)shared = in ? *(const uint32_t *)global : 0u;
#endif
}

/* Closes the thread's copies issued since the last commit into a group
 * (possibly empty, so that every thread counts groups alike). */
static __device__ __forceinline__ void gpu_copies_commit(void) {
#ifdef GPU_COPY_ASYNC
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

/* Waits until at most N of the thread's groups are still in flight. */
template <int N> static __device__ __forceinline__ void gpu_copies_wait(void) {
#ifdef GPU_COPY_ASYNC
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

#endif
