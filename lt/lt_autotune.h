/* lt_autotune.h: picks a plan's algorithm among the heuristic's candidates
 * by timing them on the plan's first call (its real buffers), keeping the
 * fastest whose outputs match the first working candidate's: D, the bias
 * gradient and the ReLU mask bit for bit (GPU_AUTOTUNE_EXACT), or D and the
 * bias gradient within rounding (GPU_AUTOTUNE_FAST: a mask bit may flip
 * where the pre-activation is within rounding of 0, which D's tolerance
 * already bounds, since the ReLU output there differs by |z|). Internal to
 * the wrapper (lt_matmul.c) and its tests. */
#ifndef MNIST_EPILOGS_LT_AUTOTUNE_H
#define MNIST_EPILOGS_LT_AUTOTUNE_H

#include "lt/lt_compare.h"
#include "lt/lt_plan.h"

/* Sets p->algo and p->info from `results[0 .. count)`, running each on
 * `call` on a lane (which leaves the last candidate's outputs there: the
 * caller's launch overwrites them). Refuses during graph capture. Returns
 * 0, or -1 with the reason in ctx->last_error. */
int lt_autotune(gpu_context *ctx, int lane, lt_plan *p,
                const lt_matmul_call *call,
                const cublasLtMatmulHeuristicResult_t *results, int count);

/* 1 when one output (D, the bias gradient or the mask) of a candidate,
 * compared with the first choice's, counts as the same: EXACT wants every
 * element's bits and every mask bit equal; FAST wants max_diff <=
 * tolerance * max_ref (never NaN), the tolerance set by the storage type
 * and, for FP32 storage, the compute type (TF32 or not). */
int lt_autotune_accepts(gpu_autotune autotune, lt_dtype type, int tf32,
                        const lt_comparison *comparison);

/* The first candidate's outputs of a plan's call, kept to compare the
 * others with (device copies of D, the bias gradient, the mask). */
typedef struct lt_tune_reference lt_tune_reference;

/* Room for the outputs of a call of `shape`. Returns 0, or -1 when GPU or
 * host memory runs out (nothing left allocated). */
int lt_tune_reference_create(lt_tune_reference **out, const lt_shape *shape);
/* A no-op on NULL. */
void lt_tune_reference_destroy(lt_tune_reference *reference);

/* Copies `call`'s outputs (D, its bias gradient, its mask) in, on
 * `stream`. Returns 0 or -1. */
int lt_tune_reference_keep(lt_tune_reference *reference,
                           const lt_matmul_call *call, cudaStream_t stream);

/* *same = 1 when `call`'s outputs now count as the kept ones under
 * `autotune` (lt_autotune_accepts on each); waits for `stream`. Returns 0
 * or -1. */
int lt_tune_reference_matches(lt_tune_reference *reference,
                              const lt_matmul_call *call, gpu_autotune autotune,
                              int tf32, cudaStream_t stream, int *same);

#endif
