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
  if (plan->c) cublasLtMatrixLayoutDestroy(plan->c);
  if (plan->b) cublasLtMatrixLayoutDestroy(plan->b);
  if (plan->a) cublasLtMatrixLayoutDestroy(plan->a);
  if (plan->op) cublasLtMatmulDescDestroy(plan->op);
  plan->a = plan->b = plan->c = plan->d = NULL;
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

/* Keys are compared with memcmp, so they must have no padding (whose
 * bytes are unspecified): every field of lt_shape and lt_plan_key is 4
 * bytes. A field of another size, or one added without updating the
 * count, stops the build here instead of being ignored by the lookup. */
_Static_assert(sizeof(lt_shape) == 15 * 4,
               "lt_shape: 15 four-byte fields expected (update the count "
               "with the fields, and keep them 4 bytes: the plan key is "
               "compared byte for byte)");
_Static_assert(sizeof(lt_plan_key) == sizeof(lt_shape) + 7 * 4,
               "lt_plan_key: the shape and 7 four-byte fields expected");

static int same_key(const lt_plan_key *x, const lt_plan_key *y) {
  return memcmp(x, y, sizeof *x) == 0;
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
