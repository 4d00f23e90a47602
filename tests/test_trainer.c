/* test_trainer.c: the trainer on a tiny in-memory data set, including a
 * batch larger than the whole training split (one partial batch per
 * epoch): an epoch, the kernel count of one step, and one step launched
 * from the host all use the real batch size. Run under compute-sanitizer
 * too (tests/run_memcheck.sh), which fails on any out-of-bounds access.
 * GPU only: skips (77) without one. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench/graph_count.h"
#include "tests/test_batch.h"
#include "tests/test_gpu.h"
#include "tests/test_util.h"
#include "train/trainer.h"

static uint64_t seed;

typedef struct tiny_case {
  int train, test, batch;
} tiny_case;

static const tiny_case tiny[] = {
    {20, 10, 64}, /* batch above the training split */
    {20, 30, 8},  /* test split larger than the training split */
    {33, 7, 16},  /* a partial last batch */
};

START_TEST(tiny_data_sets_train) {
  const tiny_case *c = &tiny[_i];
  test_rng rng;
  test_rng_init(&rng, seed + (uint64_t)_i);
  mnist_dataset data = test_random_dataset(&rng, c->train, c->test);
  /* Autotuning off: under compute-sanitizer every timed candidate costs. */
  gpu_context *ctx = test_context(GPU_AUTOTUNE_OFF, 0);
  ck_assert_ptr_nonnull(ctx);
  trainer_config config = trainer_config_defaults();
  int hidden[1] = {32};
  char err[128];
  ck_assert_int_eq(
      trainer_config_set_hidden(&config, hidden, 1, err, sizeof err), 0);
  config.batch = c->batch;
  config.epochs = 2;
  trainer *t = NULL;
  ck_assert_int_eq(trainer_create(&t, ctx, &data, &config), 0);
  ck_assert_int_eq(trainer_steps_per_epoch(t),
                   (c->train + c->batch - 1) / c->batch);
  epoch_stats s;
  for (int e = 0; e < 2; e++) {
    ck_assert_int_eq(trainer_run_epoch(t, e, &s), 0);
    ck_assert(isfinite(s.train_loss) && isfinite(s.test_loss));
    ck_assert(s.train_accuracy >= 0 && s.train_accuracy <= 1);
    ck_assert(s.test_accuracy >= 0 && s.test_accuracy <= 1);
  }
  int kernels = 0, critical = 0;
  ck_assert_int_eq(graph_count_step(t, &kernels, &critical), 0);
  ck_assert(kernels >= critical && critical > 0);
  ck_assert_int_eq(trainer_step_once(t), 0);
  trainer_destroy(t);
  gpu_context_destroy(ctx);
  mnist_dataset_destroy(&data);
}
END_TEST

/* The guard: a non-finite training loss ends the epoch with 1 (the caller
 * stops), here from a NaN in the output layer's weights. */
START_TEST(non_finite_loss_is_reported) {
  test_rng rng;
  test_rng_init(&rng, seed);
  mnist_dataset data = test_random_dataset(&rng, 40, 10);
  gpu_context *ctx = test_context(GPU_AUTOTUNE_OFF, 0);
  ck_assert_ptr_nonnull(ctx);
  trainer_config config = trainer_config_defaults();
  int hidden[1] = {16};
  char err[128];
  ck_assert_int_eq(
      trainer_config_set_hidden(&config, hidden, 1, err, sizeof err), 0);
  config.batch = 16;
  trainer *t = NULL;
  ck_assert_int_eq(trainer_create(&t, ctx, &data, &config), 0);
  const mlp *net = trainer_network(t);
  const float not_a_number = NAN;
  test_copy_to_device(net->layers[net->layout.depth - 1].d_wt, &not_a_number,
                      sizeof not_a_number);
  epoch_stats s;
  ck_assert_int_eq(trainer_run_epoch(t, 0, &s), 1);
  ck_assert(!isfinite(s.train_loss));
  trainer_destroy(t);
  gpu_context_destroy(ctx);
  mnist_dataset_destroy(&data);
}
END_TEST

/* A configuration the trainer cannot run is refused, not run. */
START_TEST(bad_configs_are_refused) {
  trainer_config config = trainer_config_defaults();
  int hidden[MLP_MAX_LAYERS] = {0};
  char err[128];
  for (int i = 0; i < MLP_MAX_LAYERS; i++)
    hidden[i] = 8;
  ck_assert_int_eq(trainer_config_set_hidden(&config, hidden, MLP_MAX_LAYERS,
                                             err, sizeof err),
                   -1);
  ck_assert_ptr_nonnull(strstr(err, "hidden layers"));
  mnist_dataset data;
  memset(&data, 0, sizeof data);
  gpu_context *ctx = test_context(GPU_AUTOTUNE_OFF, 0);
  ck_assert_ptr_nonnull(ctx);
  trainer *t = NULL;
  config.depth = MLP_MAX_LAYERS + 1;
  ck_assert_int_eq(trainer_create(&t, ctx, &data, &config), -1);
  ck_assert_ptr_null(t);
  config = trainer_config_defaults();
  config.batch = 0;
  ck_assert_int_eq(trainer_create(&t, ctx, &data, &config), -1);
  gpu_context_destroy(ctx);
}
END_TEST

int main(void) {
  test_require_gpu("trainer");
  seed = test_seed("trainer");
  Suite *suite = suite_create("trainer");
  TCase *tc = tcase_create("trainer");
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, tiny_data_sets_train, 0,
                      (int)(sizeof tiny / sizeof tiny[0]));
  tcase_add_test(tc, bad_configs_are_refused);
  tcase_add_test(tc, non_finite_loss_is_reported);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 1);
}
