/* test_trainer_fp8.c: the trainer in FP8 on a tiny in-memory data set.
 * Issue 28, defect 1: a loaded network's parameters are set before the
 * warm-up and the graphs, so its first pass calibrates the FP8 scales on
 * them. A trainer created from a seed and one created from another seed
 * but given the first one's parameters (trainer_config.initial_params, as
 * --load gives them) end their creation with the same FP8 scaling state
 * bit for bit; the second seed's own state differs (so the comparison can
 * tell). Before, the checkpoint was applied after the warm-up: the
 * histories were the random network's. And the FP8 batches the gather
 * writes (train/epoch_data.h: the input cast once per epoch), every byte
 * of a full and a partial batch. GPU only: skips (77) without one, or on a
 * GPU without FP8 (below 8.9). */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "layers/mlp_fp8.h"
#include "tests/test_batch.h"
#include "tests/test_gpu.h"
#include "tests/test_util.h"
#include "train/epoch_data.h"
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

/* The test split (50 images, batches of 32: one full, one of 18) gathered
 * as FP8 batches: each pixel's code encode(fma(pixel, scale, shift) * s),
 * s the largest power of two for the pixel range's amax, in X8 and X8T,
 * the padding rows of X8T zero, the scale record {1 / s, s}. */
START_TEST(the_gather_casts_the_batches) {
  test_rng rng;
  test_rng_init(&rng, seed + 9);
  mnist_dataset data = test_random_dataset(&rng, 0, 50);
  const float scale = 1.0f / 255.0f / 0.3081f, shift = -0.1307f / 0.3081f;
  float s = 1.0f;
  fp8_scale_from_amax(&s, fmaxf(fabsf(shift), fabsf(255 * scale + shift)),
                      LT_FP8_E4M3, NULL, 0);
  epoch_data *d = NULL;
  ck_assert_int_eq(
      epoch_data_create(&d, &data, 32, LT_DTYPE_BF16, 1, scale, shift, 0), 0);
  for (int b = 0; b < 2; b++) {
    int n = epoch_data_batch_size(d, &d->test, b);
    size_t bytes = mlp_fp8_batch_bytes(784, n);
    uint8_t *block = malloc(bytes);
    test_download(block, epoch_data_x(d, &d->test, b), bytes);
    float record[2];
    memcpy(record, block, sizeof record);
    ck_assert_msg(record[0] == 1.0f / s && record[1] == s,
                  "batch %d: scale record %g, %g, want %g, %g", b, record[0],
                  record[1], 1.0f / s, s);
    const uint8_t *x8 = block + MLP_FP8_BATCH_X8;
    const uint8_t *x8t = block + mlp_fp8_batch_x8t(784, n);
    for (int j = 0; j < lt_ld_fp8(n); j++)
      for (int p = 0; p < 784; p++) {
        uint8_t want = 0;
        if (j < n) {
          uint8_t pixel = data.test.images[(size_t)(32 * b + j) * 784 + p];
          want = fp8_encode_scaled(fmaf(pixel, scale, shift), s, LT_FP8_E4M3);
          ck_assert_msg(x8[(size_t)j * 784 + p] == want,
                        "batch %d X8 (%d,%d): 0x%02x, want 0x%02x", b, p, j,
                        x8[(size_t)j * 784 + p], want);
        }
        ck_assert_msg(x8t[(size_t)p * lt_ld_fp8(n) + j] == want,
                      "batch %d X8T (%d,%d): 0x%02x, want 0x%02x", b, j, p,
                      x8t[(size_t)p * lt_ld_fp8(n) + j], want);
      }
    free(block);
  }
  epoch_data_destroy(d);
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
  tcase_add_test(tc, the_gather_casts_the_batches);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 1);
}
