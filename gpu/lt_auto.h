/* lt_auto.h: --mode auto: for each call, the faster of the fused epilogue
 * and its unfused twin (lt_unfused.h), measured on this GPU.
 *
 * The first time a call's plan is used in auto mode (outside graph
 * capture), the call runs fused and unfused, each LT_AUTO_REPS times in a
 * row inside a CUDA graph (how training launches them; a host-launched
 * call would time the launch, not the GPU), on its real buffers, with the
 * device otherwise idle; the median of a few replays counts. The choice is
 * kept on the plan (lt_plan_info: fused_us, unfused_us, auto_choice), so
 * every later call of that shape goes the same way and --show-plans
 * prints both times. The twin is chosen only when it is 3 % faster. The
 * choice follows timing, so two runs are bitwise identical only when they
 * choose alike (near-ties are what the margin keeps fused). Both ways compute
 * the same numbers within rounding (summation order), and write the same mask
 * layout, so layers may mix them. DEFAULT calls have no twin: they run fused.
 */
#ifndef MNIST_EPILOGS_LT_AUTO_H
#define MNIST_EPILOGS_LT_AUTO_H

#include "gpu/lt_matmul.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Enqueues the call on a lane the way its plan's decision says, deciding
 * first when it has not been decided (refused during graph capture).
 * Returns 0 or -1 (reason in lt_last_error and on stderr). */
int lt_matmul_auto_on(gpu_context *ctx, int lane, const lt_matmul_call *call);

#ifdef __cplusplus
}
#endif

#endif
