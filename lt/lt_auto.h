/* lt_auto.h: --mode auto: for each call, the fastest of the fused
 * epilogue, its unfused twin (lt_unfused.h) and, for DRELU_BGRAD and
 * DGELU_BGRAD, the split way (lt_split.h: the GEMM with plain DRELU /
 * DGELU, then the project's row sums), measured on this GPU.
 *
 * A call whose pick names a way (lt_pick.way: the step tuner's choice,
 * made by timing the whole training step, train/step_tune.h) goes that
 * way. Otherwise (a network nobody tuned: inference, the tests), the
 * call decides alone: the first time a call's plan is used in auto mode
 * (outside graph capture), the call runs each way, LT_AUTO_REPS times in a row
 * inside a CUDA graph (how training launches them; a host-launched call would
 * time the launch, not the GPU), on its real buffers, with the device otherwise
 * idle; the median of a few replays counts. The split way is a candidate
 * only where cuBLASLt plans its DRELU / DGELU GEMM for that shape and
 * precision (else split_us = LT_SPLIT_REFUSED, the refusal printed once).
 * The times and the choice are kept on the plan (lt_plan_info: fused_us,
 * unfused_us, split_us, auto_choice), so every later call of that shape
 * goes the same way. Fused stays unless the
 * faster of the other ways is 3 % faster. The choice follows timing, so
 * two runs are bitwise identical only when they choose alike (near-ties
 * are what the margin keeps fused). Every way computes the same numbers
 * within rounding (summation order), and writes the same mask layout, so
 * layers may mix them. DEFAULT calls have no twin: they run fused.
 */
#ifndef MNIST_EPILOGS_LT_AUTO_H
#define MNIST_EPILOGS_LT_AUTO_H

#include "lt/lt_matmul.h"

#ifdef __cplusplus
extern "C" {
#endif

/* *way = the way (an lt_auto_choice) the call goes alone, as a call whose
 * pick names none does: its plan's decision, made first when it has not
 * been (the call's ways run and are timed on `lane`, outside graph
 * capture, with the device otherwise idle: they overwrite the call's
 * outputs, D, its aux and bias gradient, as the call would); LT_AUTO_FUSED
 * for a DEFAULT call, which has no other way. way_us (may be NULL),
 * indexed by lt_auto_choice: each way's time alone in us, 0 where it was
 * not timed (a DEFAULT call; split, for an epilogue without that way or
 * where cuBLASLt refused its GEMM). The step tuner weighs the
 * step with these ways against its better whole step and reports the
 * times (train/step_tune.h). Returns 0 or -1 (reason in lt_last_error). */
int lt_matmul_auto_choice(gpu_context *ctx, int lane,
                          const lt_matmul_call *call, int *way,
                          float way_us[LT_AUTO_SPLIT + 1]);

/* Enqueues the call on a lane the way its plan's decision says, deciding
 * first when it has not been decided (refused during graph capture).
 * Returns 0 or -1 (reason in lt_last_error and on stderr). */
int lt_matmul_auto_on(gpu_context *ctx, int lane, const lt_matmul_call *call);

#ifdef __cplusplus
}
#endif

#endif
