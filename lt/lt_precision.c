/* lt_precision.c: see lt_precision.h. */
#include "lt/lt_precision.h"

#include <cuda_runtime_api.h>
#include <stdio.h>

#include "gpu/gpu_arch.h"

int lt_precision_check_device(char *msg, size_t msg_size, int device,
                              gpu_precision precision,
                              lt_epilogue_set epilogues) {
  struct cudaDeviceProp prop;
  msg[0] = 0;
  if (cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
    cudaGetLastError(); /* gpu_context_create names the bad device */
    return 0;
  }
  int capability = prop.major * 10 + prop.minor;
  int table =
      gpu_precision_check(msg, msg_size, prop.name, capability, precision);
  if (table < 0) return table;
  /* The table can only say what the tensor cores support: ask cuBLASLt
   * itself whether it plans each epilogue of the run in this precision
   * here. */
  char refusal[1024];
  if (lt_probe_precision(refusal, sizeof refusal, device, prop.name, capability,
                         precision, epilogues) != 0) {
    snprintf(msg, msg_size, "%s", refusal);
    return -1;
  }
  return table;
}
