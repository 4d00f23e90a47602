/* lt_plan_cache.h: the opaque cache of cuBLASLt plans a GPU context holds
 * (gpu_context.plans: the wrapper makes it on its first plan and gives the
 * context its release). Only creation and destruction are public here;
 * the wrapper's side is lt_plan.h. */
#ifndef MNIST_EPILOGS_LT_PLAN_CACHE_H
#define MNIST_EPILOGS_LT_PLAN_CACHE_H

typedef struct lt_plan_cache lt_plan_cache; /* gpu_context.h names it */

/* Returns 0, or -1 with a message on stderr and *out NULL. */
int lt_plan_cache_create(lt_plan_cache **out);
/* Releases every plan; a no-op on NULL. */
void lt_plan_cache_destroy(lt_plan_cache *cache);

#endif
