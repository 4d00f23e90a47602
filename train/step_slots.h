/* step_slots.h: the step tuner's slots over the network's real calls
 * (train/step_tune.h): which choices the step has under its mode, each
 * slot's candidates as the wrapper reports them, a configuration written
 * into the layers' picks, the fingerprint, and the cache entry of a
 * configuration. Internal to the step tuner. */
#ifndef MNIST_EPILOGS_STEP_SLOTS_H
#define MNIST_EPILOGS_STEP_SLOTS_H

#include "train/step_tune.h"

/* Fills slots[] for the step's calls under the target's mode (fused: each
 * call's algorithm; unfused: each twin GEMM's; auto: both, and each
 * epilogue call's way). With `check`, asks the wrapper which candidates
 * the autotune rule accepts and how long each takes alone
 * (lt_matmul_candidates: runs them outside capture, overwriting the
 * calls' outputs); without, one candidate a slot, cuBLASLt's first, and
 * nothing runs: the slots the search --autotune off runs times (auto with
 * a rule, step_search.c: no other candidate's kernel loaded), and those a
 * cache entry's choices are found in (step_slots_from_entry). Returns the
 * count, or -1 (lt_last_error says why). */
int step_slots_build(tune_slot *slots, const step_tune_target *t,
                     const mlp_call *calls, int call_count, int check);

/* The wrapper's call whose plan slot `s` chooses in. */
lt_matmul_call step_slot_call(const mlp_call *calls, const tune_slot *s);

/* The configuration where every slot has the heuristic's first candidate
 * and every way is `way` (an lt_auto_choice). */
void step_slots_first(tune_config *c, const tune_slot *slots, int count,
                      int way);

/* Writes configuration c into the layers' picks at batch n. */
void step_slots_apply(mlp *net, const mlp_call *calls, const tune_slot *slots,
                      int count, const tune_config *c, int n);

/* The cache entry of configuration c (each algorithm by its index, its
 * attributes and its bytes), with
 * its fingerprint; key copied in. Returns 0 or -1. */
int step_slots_entry(tune_cache_entry *out, gpu_context *ctx,
                     const mlp_call *calls, const tune_slot *slots, int count,
                     const tune_config *c, const char *key);

/* The configuration a cache entry names, each algorithm found among its
 * plan's candidates now (lt_matmul_candidate_find), or with `adopt` (an
 * entry of the step tuner's context apart, in this process) taken as the
 * entry stores it (lt_matmul_candidate_adopt: no list asked for). Returns
 * 0, or -1 with why (one line) when the entry does not fit this step. */
int step_slots_from_entry(tune_config *c, gpu_context *ctx,
                          const mlp_call *calls, const tune_slot *slots,
                          int count, const tune_cache_entry *entry, int adopt,
                          char *why, size_t why_size);

#endif
