/* lt_plan.h: the wrapper's own side of the plan cache (lt_plan_cache.h):
 * what a plan holds and its key, the cache's storage (lt_plan_cache.c:
 * a plan pointer stays valid for the cache's lifetime) and the launch
 * lt_matmul.c and lt_autotune.c share (lt_plan_launch.c). Not for callers
 * of the wrapper. */
#ifndef MNIST_EPILOGS_LT_PLAN_H
#define MNIST_EPILOGS_LT_PLAN_H

#include "lt/lt_matmul.h"
#include "lt/lt_plan_cache.h"

/* Calls that may share a plan: the same shape (epilogue, aux_ld and the
 * FP8 types included), compute type, and pointer alignments (the heuristic
 * picks kernels by alignment). Pointers themselves may differ: A, B, C and
 * D are arguments of every launch; bias, aux and the FP8 scale and amax
 * pointers are set per call. Compared byte for byte (lt_plan_cache.c,
 * which asserts that the struct has no padding): every field counts, and
 * a field added here counts without a second edit. Build keys from a
 * zeroed struct. */
typedef struct lt_plan_key {
  lt_shape shape;
  cublasComputeType_t compute;
  unsigned align_a, align_b, align_c, align_d, align_bias, align_aux;
} lt_plan_key;

typedef struct lt_plan {
  lt_plan_key key;
  const void *bias_set, *aux_set; /* pointers now set on the descriptor */
  const float *a_scale_set, *b_scale_set; /* FP8: the scale pointers set */
  const float *d_scale_set;               /* FP8 D: D_SCALE and AMAX_D set */
  float *amax_d_set;
  cublasLtMatmulDesc_t op;
  cublasLtMatrixLayout_t a, b, c, d;
  cublasLtMatmulAlgo_t algo;                    /* candidate 0 */
  cublasLtMatmulAlgo_t cand[LT_MAX_CANDIDATES]; /* the heuristic's order */
  int cand_count;
  unsigned char cand_adopted[LT_MAX_CANDIDATES]; /* 1: cand[i] (i >=
                                               cand_count) taken from the
                                               step tuner's context apart
                                               (lt_matmul_candidate_adopt);
                                               cleared by lt_plan_list */
  unsigned char cand_ok[LT_MAX_CANDIDATES];      /* lt_candidates.ok, once
                                                    info.checked */
  float cand_us[LT_MAX_CANDIDATES];              /* lt_candidates.alone_us */
  lt_plan_info info;
} lt_plan;

/* The plan `call` uses, checked and built on first use as lt_matmul_on
 * does (for lt_auto.c); NULL with the reason in lt_last_error. Defined in
 * lt_matmul.c. */
lt_plan *lt_plan_for(gpu_context *ctx, const lt_matmul_call *call);

/* The cached plan with this key, or NULL. */
lt_plan *lt_plan_cache_find(lt_plan_cache *cache, const lt_plan_key *key);
/* A zeroed slot for a new plan (NULL when out of host memory); it counts
 * only after lt_plan_cache_commit. Not reentrant: a second reserve before
 * the commit hands back (and zeroes) the same slot. A committed plan never
 * moves: its address stays valid until lt_plan_cache_destroy. */
lt_plan *lt_plan_cache_reserve(lt_plan_cache *cache);
void lt_plan_cache_commit(lt_plan_cache *cache);
/* Destroys a plan's descriptor and layouts (not the slot, which the next
 * reserve reuses when it was never committed). */
void lt_plan_release(lt_plan *plan);
int lt_plan_cache_count(const lt_plan_cache *cache);
const lt_plan *lt_plan_cache_at(const lt_plan_cache *cache, int i);

/* The plan's own algorithm: the heuristic's answer when asked for one
 * candidate (--autotune off's), as candidate 0; the longer list waits for
 * lt_plan_list. Defined in lt_heuristic.c. Returns 0, or -1 with the
 * reason in lt_last_error. */
int lt_plan_choose(gpu_context *ctx, lt_plan *p);

/* Asks the heuristic for the plan's longer list of candidates, once: until
 * then a plan holds only the single answer, its algorithm. Asked for only
 * where needed (the step tuner's check, a cached choice past the first),
 * because on the H200 merely asking made the default run 5.4 % slower
 * with the same kernels launched (cuBLASLt loads the candidates' kernels:
 * docs/performance.md, "Judged by the step"). Defined in lt_heuristic.c.
 * Returns 0, or -1 with the reason in lt_last_error. */
int lt_plan_list(gpu_context *ctx, lt_plan *p);

/* The attributes of `algo` (lt_algo_id: each read into a zeroed 8-byte
 * slot, little endian: at most 4 bytes each; -1 where unreadable).
 * Defined in lt_algo_id.c. */
void lt_algo_id_of(lt_algo_id *id, const cublasLtMatmulAlgo_t *algo);

/* The algorithm `call` runs with on plan `p`: its pick (`which`: the pick's
 * field for this plan, 0 for the plan's first) or NULL when the pick is
 * past the plan's candidates (listed or adopted). Defined in
 * lt_heuristic.c. */
const cublasLtMatmulAlgo_t *lt_plan_algo(const lt_plan *p, int which);

/* Sets `call`'s bias, aux, scale, D scale and amax pointers on the plan's
 * descriptor where they differ from the ones set (calls of one shape share
 * a plan; cuBLASLt reads the pointers when a launch is enqueued). Defined
 * in lt_matmul.c. Returns 0, or -1 with the reason in lt_last_error. */
int lt_plan_bind(gpu_context *ctx, lt_plan *p, const lt_matmul_call *call);

/* Launches `call` with plan `p` and algorithm `algo` on a lane (its
 * pointers bound first: lt_plan_bind). */
cublasStatus_t lt_plan_launch(gpu_context *ctx, int lane, const lt_plan *p,
                              const lt_matmul_call *call,
                              const cublasLtMatmulAlgo_t *algo);

#endif
