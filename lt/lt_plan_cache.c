/* lt_plan_cache.c: storage and lookup of the wrapper's plans (lt_plan.h).
 * Each plan is allocated on its own and never moved, so a plan pointer
 * stays valid until the cache is destroyed; only the array of pointers to
 * them grows. Calls nothing of the wrapper's: only cuBLASLt's destructors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lt/lt_plan.h"

struct lt_plan_cache {
  lt_plan **plans; /* [capacity]: the first `count` built, plans[count] a
                      reserved slot or NULL, the rest NULL */
  int count, capacity;
};

int lt_plan_cache_create(lt_plan_cache **out) {
  *out = calloc(1, sizeof **out);
  if (!*out) {
    fprintf(stderr, "lt_matmul: out of host memory creating the plan cache\n");
    return -1;
  }
  return 0;
}

void lt_plan_release(lt_plan *plan) {
  if (plan->d) cublasLtMatrixLayoutDestroy(plan->d);
  if (plan->b) cublasLtMatrixLayoutDestroy(plan->b);
  if (plan->a) cublasLtMatrixLayoutDestroy(plan->a);
  if (plan->op) cublasLtMatmulDescDestroy(plan->op);
  plan->a = plan->b = plan->d = NULL;
  plan->op = NULL;
}

void lt_plan_cache_destroy(lt_plan_cache *cache) {
  if (!cache) return;
  for (int i = 0; i < cache->count; i++)
    lt_plan_release(cache->plans[i]);
  for (int i = 0; i < cache->capacity; i++)
    free(cache->plans[i]);
  free(cache->plans);
  free(cache);
}

static int same_shape(const lt_shape *x, const lt_shape *y) {
  return x->type == y->type && x->m == y->m && x->n == y->n && x->k == y->k &&
         x->transa == y->transa && x->transb == y->transb && x->lda == y->lda &&
         x->ldb == y->ldb && x->ldd == y->ldd && x->epilogue == y->epilogue &&
         x->aux_ld == y->aux_ld && x->a_fp8 == y->a_fp8 &&
         x->b_fp8 == y->b_fp8 && x->fast_accum == y->fast_accum;
}

static int same_key(const lt_plan_key *x, const lt_plan_key *y) {
  return same_shape(&x->shape, &y->shape) && x->compute == y->compute &&
         x->align_a == y->align_a && x->align_b == y->align_b &&
         x->align_d == y->align_d && x->align_bias == y->align_bias &&
         x->align_aux == y->align_aux;
}

lt_plan *lt_plan_cache_find(lt_plan_cache *cache, const lt_plan_key *key) {
  for (int i = 0; i < cache->count; i++)
    if (same_key(&cache->plans[i]->key, key)) return cache->plans[i];
  return NULL;
}

/* Not reentrant: until lt_plan_cache_commit, every reserve hands back the
 * same slot (zeroed again), so one plan is built at a time. */
lt_plan *lt_plan_cache_reserve(lt_plan_cache *cache) {
  if (cache->count == cache->capacity) {
    int capacity = cache->capacity ? 2 * cache->capacity : 16;
    lt_plan **bigger = realloc(cache->plans, (size_t)capacity * sizeof *bigger);
    if (!bigger) return NULL;
    memset(bigger + cache->capacity, 0,
           (size_t)(capacity - cache->capacity) * sizeof *bigger);
    cache->plans = bigger;
    cache->capacity = capacity;
  }
  lt_plan **slot = &cache->plans[cache->count];
  if (!*slot) *slot = malloc(sizeof **slot);
  if (!*slot) return NULL;
  memset(*slot, 0, sizeof **slot);
  return *slot;
}

void lt_plan_cache_commit(lt_plan_cache *cache) {
  cache->count++;
}

int lt_plan_cache_count(const lt_plan_cache *cache) {
  return cache->count;
}

const lt_plan *lt_plan_cache_at(const lt_plan_cache *cache, int i) {
  return cache->plans[i];
}
