/* test_lt_plan_cache.c: the wrapper's plan cache keeps every plan where it
 * was built: a plan pointer held across the creation of many more plans
 * (enough to grow the cache's storage several times) still points at the
 * same plan, and lookup returns that pointer. Also that a reserved slot
 * left uncommitted (a failed build) is reused, not counted. No cuBLASLt
 * handle is created (the plans' descriptors stay NULL), so this runs
 * without a GPU. And an algorithm's name in messages (lt_algo_id_name). */
#include <check.h>
#include <string.h>

#include "lt/lt_plan.h"
#include "tests/test_util.h"

/* A key no other plan of the test shares: m = id + 1. */
static lt_plan_key key_for(int id) {
  lt_plan_key key;
  memset(&key, 0, sizeof key);
  key.shape.type = LT_DTYPE_F32;
  key.shape.m = id + 1;
  key.shape.n = 8;
  key.shape.k = 8;
  key.compute = CUBLAS_COMPUTE_32F;
  key.align_a = key.align_b = key.align_d = 256;
  return key;
}

static lt_plan *add_plan(lt_plan_cache *cache, int id) {
  lt_plan *p = lt_plan_cache_reserve(cache);
  ck_assert_ptr_nonnull(p);
  p->key = key_for(id);
  p->info.offered = id;
  lt_plan_cache_commit(cache);
  return p;
}

START_TEST(plan_pointer_outlives_growth) {
  enum { MORE = 1000 };
  lt_plan_cache *cache = NULL;
  ck_assert_int_eq(lt_plan_cache_create(&cache), 0);
  lt_plan *held = add_plan(cache, 0);
  for (int id = 1; id <= MORE; id++)
    add_plan(cache, id);
  ck_assert_int_eq(lt_plan_cache_count(cache), MORE + 1);
  lt_plan_key key = key_for(0);
  ck_assert_ptr_eq(lt_plan_cache_find(cache, &key), held);
  ck_assert_ptr_eq(lt_plan_cache_at(cache, 0), held);
  ck_assert_int_eq(held->key.shape.m, 1);
  ck_assert_int_eq(held->info.offered, 0);
  /* And every other plan is still found where it was built. */
  for (int id = 1; id <= MORE; id++) {
    key = key_for(id);
    const lt_plan *p = lt_plan_cache_find(cache, &key);
    ck_assert_ptr_nonnull(p);
    ck_assert_ptr_eq(p, lt_plan_cache_at(cache, id));
    ck_assert_int_eq(p->info.offered, id);
  }
  lt_plan_cache_destroy(cache);
}
END_TEST

START_TEST(uncommitted_slot_is_reused) {
  lt_plan_cache *cache = NULL;
  ck_assert_int_eq(lt_plan_cache_create(&cache), 0);
  lt_plan *failed = lt_plan_cache_reserve(cache);
  ck_assert_ptr_nonnull(failed);
  failed->key = key_for(7);
  failed->info.offered = 7;
  ck_assert_int_eq(lt_plan_cache_count(cache), 0);
  lt_plan_key key = key_for(7);
  ck_assert_ptr_null(lt_plan_cache_find(cache, &key));
  lt_plan *again = lt_plan_cache_reserve(cache);
  ck_assert_ptr_eq(again, failed);
  ck_assert_int_eq(again->info.offered, 0); /* zeroed */
  lt_plan_cache_destroy(cache);
  lt_plan_cache_destroy(NULL);
}
END_TEST

/* Two calls that differ only in their FP8 operand types, D's type or fast
 * accumulation are different plans (a BF16 plan run on FP8 operands, or
 * the reverse, reads the wrong bytes; a plan writing E4M3 run for a BF16
 * D writes the wrong bytes). */
START_TEST(fp8_fields_are_part_of_the_key) {
  lt_plan_cache *cache = NULL;
  ck_assert_int_eq(lt_plan_cache_create(&cache), 0);
  lt_plan_key fp8 = key_for(3);
  fp8.shape.type = LT_DTYPE_BF16;
  fp8.shape.a_fp8 = LT_FP8_E4M3;
  fp8.shape.b_fp8 = LT_FP8_E5M2;
  lt_plan *p = lt_plan_cache_reserve(cache);
  ck_assert_ptr_nonnull(p);
  p->key = fp8;
  lt_plan_cache_commit(cache);
  ck_assert_ptr_eq(lt_plan_cache_find(cache, &fp8), p);
  lt_plan_key other = fp8;
  other.shape.a_fp8 = other.shape.b_fp8 = LT_FP8_NONE;
  ck_assert_ptr_null(lt_plan_cache_find(cache, &other));
  other = fp8;
  other.shape.b_fp8 = LT_FP8_E4M3;
  ck_assert_ptr_null(lt_plan_cache_find(cache, &other));
  other = fp8;
  other.shape.fast_accum = 1;
  ck_assert_ptr_null(lt_plan_cache_find(cache, &other));
  other = fp8;
  other.shape.d_fp8 = LT_FP8_E4M3;
  ck_assert_ptr_null(lt_plan_cache_find(cache, &other));
  lt_plan_cache_destroy(cache);
}
END_TEST

/* No field of the key can be forgotten by the lookup: a key that differs
 * from a cached one in any one of its 4-byte words (every field of
 * lt_shape and lt_plan_key is one: lt_plan_cache.c asserts it) finds
 * nothing, and the key itself finds its plan. */
START_TEST(every_field_of_the_key_counts) {
  lt_plan_cache *cache = NULL;
  ck_assert_int_eq(lt_plan_cache_create(&cache), 0);
  lt_plan *p = add_plan(cache, 5);
  lt_plan_key key = key_for(5);
  ck_assert_ptr_eq(lt_plan_cache_find(cache, &key), p);
  enum { WORDS = sizeof(lt_plan_key) / sizeof(uint32_t) };
  ck_assert_uint_eq(sizeof(lt_plan_key) % sizeof(uint32_t), 0);
  for (int w = 0; w < WORDS; w++) {
    lt_plan_key other = key;
    uint32_t word;
    memcpy(&word, (char *)&other + w * sizeof word, sizeof word);
    word ^= 0x10u;
    memcpy((char *)&other + w * sizeof word, &word, sizeof word);
    ck_assert_msg(lt_plan_cache_find(cache, &other) == NULL,
                  "a key differing in word %d of %d found the plan", w, WORDS);
  }
  lt_plan_cache_destroy(cache);
}
END_TEST

/* An algorithm is named in messages by its config, tile and stages ids
 * (fields 0, 1 and 6 of lt_algo_id), whatever the others hold. */
START_TEST(algorithm_named_by_config_tile_and_stages) {
  lt_algo_id id;
  for (int f = 0; f < LT_ALGO_FIELDS; f++)
    id.field[f] = 100 + f;
  char name[96];
  lt_algo_id_name(name, sizeof name, &id);
  ck_assert_str_eq(name, "id 100 tile 101 stages 106");
  id.field[CUBLASLT_ALGO_CONFIG_TILE_ID] = -1;
  lt_algo_id_name(name, sizeof name, &id);
  ck_assert_str_eq(name, "id 100 tile -1 stages 106");
}
END_TEST

int main(void) {
  Suite *suite = suite_create("lt_plan_cache");
  TCase *tc = tcase_create("storage");
  tcase_add_test(tc, plan_pointer_outlives_growth);
  tcase_add_test(tc, uncommitted_slot_is_reused);
  tcase_add_test(tc, fp8_fields_are_part_of_the_key);
  tcase_add_test(tc, every_field_of_the_key_counts);
  tcase_add_test(tc, algorithm_named_by_config_tile_and_stages);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 0);
}
