/* gpu_arch.h: what this build can do on a given GPU, decided in plain C
 * (no CUDA calls, so the rules are unit-tested without a GPU): whether the
 * driver is new enough for the CUDA runtime, whether the binary holds code
 * for the GPU's compute capability, what each precision needs, and whether
 * a kernel may start early (programmatic dependent launch). The CUDA side
 * that gathers the facts is gpu/gpu_arch_check.h.
 *
 * Capabilities are written major * 10 + minor (8.9 -> 89); CUDA versions as
 * cudaDriverGetVersion writes them, 1000 * major + 10 * minor (13.0 ->
 * 13000). An architecture list is CMake's CMAKE_CUDA_ARCHITECTURES, its
 * entries separated by ';', ',' or blanks: "75-real" (SASS for sm_75),
 * "90-virtual" (compute_90 PTX), "90" (both), "90a-real" (sm_90 only). */
#ifndef MNIST_EPILOGS_GPU_ARCH_H
#define MNIST_EPILOGS_GPU_ARCH_H

#include <stddef.h>

#include "gpu/gpu_options.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The oldest compute capability CUDA 13 (and so this project) supports. */
#define GPU_ARCH_MIN_CAPABILITY 75

/* The code an architecture list holds for one GPU. */
typedef enum gpu_code {
  GPU_CODE_UNKNOWN = -1, /* "native", "all", ...: the list does not say */
  GPU_CODE_NONE = 0,     /* nothing this GPU can run */
  GPU_CODE_PTX = 1,      /* only PTX, JIT-compiled by the driver */
  GPU_CODE_SASS = 2      /* machine code for this GPU's architecture */
} gpu_code;

/* What `list` holds for a GPU of `capability`: SASS for X runs on the same
 * major with minor >= X's ("a" variants only on X itself); PTX for X is
 * JIT-compiled for any capability >= X. */
gpu_code gpu_arch_code_for(const char *list, int capability);

typedef struct gpu_arch_facts {
  const char *device_name; /* "NVIDIA H200" */
  int capability;          /* 90 */
  int driver_version;      /* cudaDriverGetVersion; 0 = no driver */
  int runtime_version;     /* cudaRuntimeGetVersion */
  const char *arch_list;   /* the CMake list the binary was built with */
  int kernel_image;        /* the real probe: 1 the project's kernel has
                              code for this GPU and loaded (so no PTX rule
                              of the driver applies), 0 it has none
                              (cudaErrorNoKernelImageForDevice), -1 not
                              probed (then the list decides) */
} gpu_arch_facts;

typedef enum gpu_arch_verdict {
  GPU_ARCH_OK,
  GPU_ARCH_NO_DRIVER,  /* no NVIDIA driver at all */
  GPU_ARCH_OLD_DRIVER, /* the driver is older than the runtime needs */
  GPU_ARCH_OLD_GPU,    /* below GPU_ARCH_MIN_CAPABILITY */
  GPU_ARCH_NO_CODE     /* the binary holds no code this GPU can run */
} gpu_arch_verdict;

/* The driver alone (before a device is touched): GPU_ARCH_OK, or
 * NO_DRIVER / OLD_DRIVER with msg saying the driver's version, the version
 * needed and the driver to install (its Linux number where the CUDA major
 * has one in the table: 12.x 525.60.13, 13.x 580). `code` is what the binary
 * holds for the GPU (GPU_CODE_UNKNOWN before a device is known): an older
 * driver of the same major runs SASS (minor-version compatibility) but cannot
 * JIT newer PTX. */
gpu_arch_verdict gpu_driver_decide(char *msg, size_t msg_size,
                                   int driver_version, int runtime_version,
                                   gpu_code code);

/* The driver, then the GPU's age, then the code for it: GPU_ARCH_OK (msg
 * empty), or the first refusal with msg naming the GPU, its capability,
 * the architectures the binary holds and the command that rebuilds. */
gpu_arch_verdict gpu_arch_decide(char *msg, size_t msg_size,
                                 const gpu_arch_facts *facts);

/* Whether `precision` runs on a GPU of `capability`: 0 with tensor cores as
 * intended (msg empty), 1 it runs without them (msg: one line saying so),
 * -1 refused (msg: the GPU, its capability, what the precision needs). */
int gpu_precision_check(char *msg, size_t msg_size, const char *device_name,
                        int capability, gpu_precision precision);

/* The refusal of a precision whose epilogue cuBLASLt declines on this GPU
 * (lt/lt_probe.h): one line naming the precision, the GPU, its
 * capability, the epilogue and cuBLASLt's reason. */
void gpu_precision_refusal(char *msg, size_t msg_size, const char *device_name,
                           int capability, gpu_precision precision,
                           const char *epilogue, const char *reason);

/* Whether a kernel may be launched to start early: only when the code that
 * runs was compiled for sm_90 or newer, where gpu_wait_previous() holds
 * cudaGridDependencySynchronize(). binary_version and ptx_version are
 * cudaFuncAttributes'. PTX JIT-compiled from compute_80 runs as sm_90 code
 * on an H200 (binaryVersion may read 90) but was compiled without the wait
 * (ptxVersion 80), so both must be 90 or more. */
int gpu_early_start_allowed(int binary_version, int ptx_version);

#ifdef __cplusplus
}
#endif

#endif
