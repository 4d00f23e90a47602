/* lt_autotune.h: which of a plan's heuristic candidates the step tuner
 * (train/step_tune.h) may choose: those that compute what the first
 * candidate computes, under the context's rule (gpu_options.autotune):
 *
 *   EXACT  every output (D, the bias gradient, the ReLU mask or GELU
 *          input) bit for bit, on the call's own buffers AND on a probe
 *          built to expose the summation order (below). One call's buffers
 *          are not enough in 16-bit or FP8 outputs: FP32 sums that differ
 *          in their last bits round to the same 16-bit value on one call
 *          and not on the next (measured: runs tuned that way differed).
 *   FAST   D and the bias gradient within rounding of the first (split-K
 *          and other summation orders too); a mask bit may flip where the
 *          pre-activation is within rounding of 0, which D's tolerance
 *          already bounds (the ReLU output there differs by |z|). No probe.
 *
 * The probe (lt_compare.h, lt_probe_fill): in every dot product the first
 * and last terms are +H and -H (H = 2^20 in FP32, TF32 and BF16, 2^15 in
 * FP16, 2^16 in FP8) and the others small random values, so the large
 * partial sum that the terms in between are added to loses their low bits
 * in an order-dependent way: two summation orders give different bits in
 * D in any storage type, while candidates that differ only in how they
 * tile m and n (the same k order) give the same bits in D. The bias
 * gradient of BGRADB (BGRADA) sums op(B) (op(A)) over the same k with the
 * same large cancelling pair, so its order shows too; that of DRELU_BGRAD
 * and DGELU_BGRAD sums D over n, which the probe does not load: there a
 * candidate that orders the n-sum otherwise passes when its bits agree on
 * the call's own buffers and the probe's. An FP8 D (E4M3 codes) and its
 * amax are compared byte for byte under either rule. Each candidate the
 * rule accepts is also timed alone on the lane it is checked on (the least
 * of three rounds' means of three launches; the step tuner checks on the
 * main lane),
 * which orders the tuner's visits; the choice itself is made in the step.
 * Internal to the wrapper (lt_matmul.c) and its tests. */
#ifndef MNIST_EPILOGS_LT_AUTOTUNE_H
#define MNIST_EPILOGS_LT_AUTOTUNE_H

#include "lt/lt_compare.h"
#include "lt/lt_plan.h"

/* Fills p->cand_ok, p->cand_us and p->info (checked, accepted, first_us)
 * by running every candidate on `call` (its buffers, then the probe) on a
 * lane, waiting for it; leaves the last candidate's outputs there. Refuses
 * during graph capture. Returns 0, or -1 with the reason in
 * ctx->last_error. */
int lt_autotune_check(gpu_context *ctx, int lane, lt_plan *p,
                      const lt_matmul_call *call);

/* 1 when one output (D, the bias gradient or the mask) of a candidate,
 * compared with the first choice's, counts as the same: EXACT wants every
 * element's bits and every mask bit equal; FAST wants max_diff <=
 * tolerance * max_ref (never NaN), the tolerance set by the storage type
 * and, for FP32 storage, the compute type (TF32 or not). */
int lt_autotune_accepts(gpu_autotune autotune, lt_dtype type, int tf32,
                        const lt_comparison *comparison);

/* The first candidate's outputs of a plan's call, kept to compare the
 * others with (device copies of D, the bias gradient, the aux written). */
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
