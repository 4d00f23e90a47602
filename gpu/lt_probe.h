/* lt_probe.h: asks cuBLASLt on the user's GPU, once at start, whether it
 * would plan every epilogue a run uses in one precision (the capability
 * table of gpu_arch.h only says what the tensor cores support; cuBLASLt
 * may still decline an epilogue there). Plans only: nothing runs. */
#ifndef MNIST_EPILOGS_LT_PROBE_H
#define MNIST_EPILOGS_LT_PROBE_H

#include <stddef.h>

#include "gpu/gpu_options.h"
#include "gpu/lt_shape.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The epilogues probed, in order: RELU_AUX_BIAS, BIAS, DRELU_BGRAD,
 * BGRADB, DEFAULT, GELU_AUX_BIAS, DGELU_BGRAD (every call of a training
 * step, ReLU or GELU). */
enum { LT_PROBE_CALLS = 7 };

/* The i-th probed call's shape (0 <= i < LT_PROBE_CALLS) in `type`, at
 * m = n = k = 64, from the lt_shape.h builders. */
lt_shape lt_probe_shape(int i, lt_dtype type);

/* On `device` (named device_name, of `capability`): asks the heuristic
 * (lt_matmul_plannable) for each probed call in `precision` on small
 * scratch buffers. Returns 0 when every one has an algorithm, else -1
 * with msg naming the GPU, its capability, the precision and the epilogue
 * refused (gpu_precision_refusal). When the probe cannot be set up (no
 * handle, no memory) it returns 0 with msg empty: gpu_context_create
 * reports the device's trouble. */
int lt_probe_precision(char *msg, size_t msg_size, int device,
                       const char *device_name, int capability,
                       gpu_precision precision);

#ifdef __cplusplus
}
#endif

#endif
