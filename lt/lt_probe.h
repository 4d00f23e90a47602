/* lt_probe.h: asks cuBLASLt on the user's GPU, once at start, whether it
 * would plan every epilogue a run uses in one precision (the capability
 * table of gpu_arch.h only says what the tensor cores support; cuBLASLt
 * may still decline an epilogue there). Only the epilogues the run calls
 * are asked about (lt_run_epilogues): one the run never calls cannot
 * refuse it. Plans only: nothing runs. */
#ifndef MNIST_EPILOGS_LT_PROBE_H
#define MNIST_EPILOGS_LT_PROBE_H

#include <stddef.h>

#include "gpu/gpu_options.h"
#include "lt/lt_shape.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A set of epilogues: bit e (LT_EPILOGUE_BIT(e)) for lt_epilogue e. */
typedef unsigned lt_epilogue_set;
#define LT_EPILOGUE_BIT(e) (1u << (unsigned)(e))

/* Which ways a run makes its calls (--mode): fused (the epilogues), unfused
 * (plain DEFAULT GEMMs and the project's kernels), or both (auto times
 * both; mnist_bench runs both). */
typedef enum lt_run_ways {
  LT_RUN_FUSED = 1,
  LT_RUN_UNFUSED = 2,
  LT_RUN_BOTH = LT_RUN_FUSED | LT_RUN_UNFUSED
} lt_run_ways;

/* The epilogues a run with hidden layers of `activation` calls. Fused
 * training (training = 1): every call of its step (layers/linear.h): BIAS,
 * the activation's forward (RELU_AUX_BIAS or GELU_AUX_BIAS) and backward
 * (DRELU_BGRAD or DGELU_BGRAD), BGRADB and DEFAULT; fused inference
 * (training = 0: mnist_predict, mnist_train --epochs 0): the forwards only,
 * BIAS and the activation's forward. Unfused, training or not: DEFAULT
 * only. Both: the union. Plain C, no GPU. No other epilogue is ever in the
 * set, so one added to lt_epilogue is probed only once a run asks (auto's
 * split way is no such case: it is a candidate only where cuBLASLt plans
 * it, lt_auto.h). */
lt_epilogue_set lt_run_epilogues(lt_activation activation, int training,
                                 lt_run_ways ways);

/* The probe's call for `epilogue` in `type`, at m = n = k = 64, from the
 * lt_shape.h builders: 0, or -1 for an epilogue without a probe call (no
 * run calls it; *shape untouched). Plain C, no GPU. */
int lt_probe_shape(lt_shape *shape, lt_epilogue epilogue, lt_dtype type);

/* On `device` (named device_name, of `capability`): asks the heuristic
 * (lt_matmul_plannable) for the probe call of each epilogue in
 * `epilogues`, in lt_epilogue order, in `precision` on small scratch
 * buffers. Returns 0 when every one has an algorithm, else -1 with msg
 * naming the GPU, its capability, the precision and the epilogue refused
 * (gpu_precision_refusal; an epilogue without a probe call is refused the
 * same way). When the probe cannot be set up (no handle, no memory) it
 * returns 0 with msg empty: gpu_context_create reports the device's
 * trouble. */
int lt_probe_precision(char *msg, size_t msg_size, int device,
                       const char *device_name, int capability,
                       gpu_precision precision, lt_epilogue_set epilogues);

#ifdef __cplusplus
}
#endif

#endif
