/* lt_autotune.h: picks a plan's algorithm among the heuristic's candidates
 * by timing them on the plan's first call (its real buffers), keeping the
 * fastest whose outputs match the first working candidate's: D, the bias
 * gradient and the ReLU mask, bitwise (GPU_AUTOTUNE_EXACT) or D and the
 * bias gradient within rounding (GPU_AUTOTUNE_FAST; the mask still bit for
 * bit). Internal to the wrapper (lt_matmul.c). */
#ifndef MNIST_EPILOGS_LT_AUTOTUNE_H
#define MNIST_EPILOGS_LT_AUTOTUNE_H

#include "lt_compare.h"
#include "lt_plan.h"

/* Sets p->algo and p->info from `results[0 .. count)`, running each on
 * `call` on a lane (which leaves the last candidate's outputs there: the
 * caller's launch overwrites them). Refuses during graph capture. Returns
 * 0, or -1 with the reason in ctx->last_error. */
int lt_autotune(gpu_context *ctx, int lane, lt_plan *p,
                const lt_matmul_call *call,
                const cublasLtMatmulHeuristicResult_t *results, int count);

/* 1 when one output (D or the bias gradient) of a candidate, compared with
 * the first choice's, counts as the same: EXACT wants every element's bits
 * equal; FAST wants max_diff <= tolerance * max_ref (never NaN), the
 * tolerance set by the compute type. Masks must match bit for bit in both
 * modes: mask_bits_differ == 0. */
int lt_autotune_accepts(gpu_autotune autotune, int tf32,
                        const lt_comparison *comparison);

#endif
