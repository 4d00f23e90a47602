/* test_trainer_fp8.c: the trainer in FP8 on a tiny in-memory data set.
 * Issue 28, defect 1: a loaded network's parameters are set before the
 * warm-up and the graphs, so its first pass calibrates the FP8 scales on
 * them. A trainer created from a seed and one created from another seed
 * but given the first one's parameters (trainer_config.initial_params, as
 * --load gives them) end their creation with the same FP8 scaling state
 * bit for bit; the second seed's own state differs (so the comparison can
 * tell). Before, the checkpoint was applied after the warm-up: the
 * histories were the random network's. (The FP8 batches the gather writes:
 * test_epoch_gather.) GPU only: skips (77) without one, or on a GPU
 * without FP8 (below 8.9). */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "layers/mlp_fp8.h"
#include "tests/test_batch.h"
#include "tests/test_gpu.h"
#include "tests/test_util.h"
#include "train/trainer.h"

static uint64_t seed;

/* A trainer of 784-144-10 in FP8 from `from` (a seed), or from `initial`
 * (a network's layout and parameters) when not NULL; its FP8 state after
 * creation into meta[0 .. 6), its parameters into *params (malloc'd). */
static void create(gpu_context *ctx, const mnist_dataset *data,
                   unsigned long long from, const mlp *initial,
                   const float *initial_params, fp8_meta *meta, float **params,
                   trainer **out) {
  trainer_config c = trainer_config_defaults();
  int hidden[1] = {144};
  char err[128];
  ck_assert_int_eq(trainer_config_set_hidden(&c, hidden, 1, err, sizeof err),
                   0);
  c.batch = 64;
  c.epochs = 1;
  c.seed = from;
  if (initial) {
    c.initial_layout = &initial->layout;
    c.initial_params = initial_params;
  }
  ck_assert_int_eq(trainer_create(out, ctx, data, &c), 0);
  const mlp *net = trainer_network(*out);
  ck_assert_int_eq(mlp_fp8_read_meta(net, ctx, meta), 0);
  *params = malloc(net->layout.slab_floats * sizeof(float));
  ck_assert_int_eq(trainer_get_params(*out, *params), 0);
}

START_TEST(a_loaded_network_calibrates_on_its_own_parameters) {
  test_rng rng;
  test_rng_init(&rng, seed);
  mnist_dataset data = test_random_dataset(&rng, 200, 50);
  gpu_context *ctx = test_context(GPU_AUTOTUNE_OFF, GPU_PRECISION_FP8);
  ck_assert_ptr_nonnull(ctx);
  fp8_meta first[6], loaded[6], other[6];
  float *p_first, *p_loaded, *p_other;
  trainer *t1, *t2, *t3;
  create(ctx, &data, seed, NULL, NULL, first, &p_first, &t1);
  create(ctx, &data, seed + 1, trainer_network(t1), p_first, loaded, &p_loaded,
         &t2);
  create(ctx, &data, seed + 1, NULL, NULL, other, &p_other, &t3);
  size_t bytes = trainer_network(t1)->layout.slab_floats * sizeof(float);
  ck_assert_msg(memcmp(p_first, p_loaded, bytes) == 0,
                "the loaded parameters were not the network's");
  ck_assert_msg(memcmp(first, loaded, sizeof first) == 0,
                "the loaded network's FP8 state is not the one its own "
                "parameters give: the warm-up calibrated another network");
  ck_assert_msg(memcmp(first, other, sizeof first) != 0,
                "two seeds gave the same FP8 state: the test cannot tell");
  free(p_first);
  free(p_loaded);
  free(p_other);
  trainer_destroy(t1);
  trainer_destroy(t2);
  trainer_destroy(t3);
  gpu_context_destroy(ctx);
  mnist_dataset_destroy(&data);
}
END_TEST

int main(void) {
  test_require_fp8("trainer_fp8");
  seed = test_seed("trainer_fp8");
  Suite *suite = suite_create("trainer_fp8");
  TCase *tc = tcase_create("fp8");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, a_loaded_network_calibrates_on_its_own_parameters);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 1);
}
