/* test_epoch_gather.c: the epoch's gathers (train/epoch_gather.h) on a
 * data set of random images, both splits (the test split in file order,
 * the training split shuffled), every batch, batch sizes that leave a
 * partial last batch, one smaller than the split, 1, and sizes that are no
 * multiple of 16 or of the FP8 gather's 32-sample tiles.
 * - Typed (FP32, BF16, FP16): each sample's 784 values in its batch column
 *   are fma(pixel, scale, shift) rounded once to the type, its label in the
 *   same place. The kernel moves 4 (FP32) or 8 (16-bit) pixels a lane, one
 *   16-byte store; a wrong lane, chunk or row puts another sample's or
 *   chunk's pixels there.
 * - FP8: every code of X8 and X8T, encode(fma(pixel, scale, shift) * s), s
 *   the largest power of two for the pixel range's amax; X8T's padding rows
 *   zero; the scale record {1 / s, s}. The kernel writes X8T through a
 *   shared tile of 32 samples.
 * - Rows neither kernel takes (784 is 49 chunks of 16; 100 pixels is not)
 *   are refused with -1 before any GPU work.
 * GPU only: skips (77) without one. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "layers/fp8.h"
#include "layers/mlp_fp8.h"
#include "tests/test_batch.h"
#include "tests/test_gpu.h"
#include "tests/test_types.h"
#include "tests/test_util.h"
#include "train/epoch_data.h"
#include "train/epoch_gather.h"

enum { PIXELS = 784, TRAIN = 75, TEST = 50 };

static uint64_t seed;
static const float scale = 1.0f / 255.0f / 0.3081f, shift = -0.1307f / 0.3081f;

/* A split's order and labels as the gather left them; checks that the
 * training order is no identity (else the test could not tell). */
static void download_order(const epoch_split *split, int count, int *order,
                           int *labels, int shuffled) {
  test_download(order, split->d_order, (size_t)count * sizeof(int));
  test_download(labels, split->d_y, (size_t)count * sizeof(int));
  int identity = 1;
  for (int j = 0; j < count; j++)
    identity &= order[j] == j;
  ck_assert_msg(identity != shuffled,
                shuffled ? "the shuffled order is the identity: the test "
                           "cannot tell samples apart by place"
                         : "the test split is not in file order");
}

/* Both splits of `data` gathered in `type` (fp8: FP8 batches) at batch
 * `batch`, each split's order and labels downloaded. */
static epoch_data *gathered(const mnist_dataset *data, int batch, lt_dtype type,
                            int fp8) {
  epoch_data *d = NULL;
  ck_assert_int_eq(
      epoch_data_create(&d, data, batch, type, fp8, scale, shift, 0), 0);
  ck_assert_int_eq(epoch_data_shuffle(d, seed, 1), 0);
  ck_assert_int_eq(epoch_data_gather(d, &d->train), 0);
  return d;
}

static void check_typed(lt_dtype type, int batch) {
  test_rng rng;
  test_rng_init(&rng, seed + (uint64_t)type * 1000 + (uint64_t)batch);
  mnist_dataset data = test_random_dataset(&rng, TRAIN, TEST);
  epoch_data *d = gathered(&data, batch, type, 0);
  for (int which = 0; which < 2; which++) {
    const epoch_split *split = which ? &d->train : &d->test;
    const mnist_split *images = which ? &data.train : &data.test;
    int order[TRAIN], labels[TRAIN];
    download_order(split, images->count, order, labels, which);
    size_t ld = (size_t)lt_ld(PIXELS);
    for (int b = 0; b < epoch_data_steps(d, split); b++) {
      int n = epoch_data_batch_size(d, split, b);
      double *x =
          test_download_as(type, epoch_data_x(d, split, b), ld * (size_t)n);
      for (int j = 0; j < n; j++) {
        int at = batch * b + j, sample = order[at];
        ck_assert_msg(labels[at] == images->labels[sample],
                      "type %d batch %d, position %d: label %d, want sample "
                      "%d's %d",
                      (int)type, batch, at, labels[at], sample,
                      images->labels[sample]);
        for (int p = 0; p < PIXELS; p++) {
          uint8_t pixel = images->images[(size_t)sample * PIXELS + p];
          float want = test_round(type, fmaf(pixel, scale, shift));
          ck_assert_msg(x[(size_t)j * ld + p] == (double)want,
                        "type %d, %s batch %d of %d, column %d (sample %d) "
                        "pixel %d: %.9g, want %.9g",
                        (int)type, which ? "train" : "test", b, batch, j,
                        sample, p, x[(size_t)j * ld + p], (double)want);
        }
      }
      free(x);
    }
  }
  epoch_data_destroy(d);
  mnist_dataset_destroy(&data);
}

static void check_fp8(int batch) {
  test_rng rng;
  test_rng_init(&rng, seed + 9 + (uint64_t)batch);
  mnist_dataset data = test_random_dataset(&rng, TRAIN, TEST);
  float s = 1.0f;
  fp8_scale_from_amax(&s, fmaxf(fabsf(shift), fabsf(255 * scale + shift)),
                      LT_FP8_E4M3, NULL, 0);
  epoch_data *d = gathered(&data, batch, LT_DTYPE_BF16, 1);
  for (int which = 0; which < 2; which++) {
    const epoch_split *split = which ? &d->train : &d->test;
    const mnist_split *images = which ? &data.train : &data.test;
    int order[TRAIN], labels[TRAIN];
    download_order(split, images->count, order, labels, which);
    for (int b = 0; b < epoch_data_steps(d, split); b++) {
      int n = epoch_data_batch_size(d, split, b), ld_t = lt_ld_fp8(n);
      size_t bytes = mlp_fp8_batch_bytes(PIXELS, n);
      uint8_t *block = malloc(bytes);
      test_download(block, epoch_data_x(d, split, b), bytes);
      float record[2];
      memcpy(record, block, sizeof record);
      ck_assert_msg(record[0] == 1.0f / s && record[1] == s,
                    "batch %d: scale record %g, %g, want %g, %g", b, record[0],
                    record[1], 1.0f / s, s);
      const uint8_t *x8 = block + MLP_FP8_BATCH_X8;
      const uint8_t *x8t = block + mlp_fp8_batch_x8t(PIXELS, n);
      for (int j = 0; j < ld_t; j++) {
        int at = batch * b + j, sample = j < n ? order[at] : -1;
        if (j < n)
          ck_assert_msg(labels[at] == images->labels[sample],
                        "batch size %d, position %d: label %d, want %d", batch,
                        at, labels[at], images->labels[sample]);
        for (int p = 0; p < PIXELS; p++) {
          uint8_t want = 0;
          if (j < n) {
            uint8_t pixel = images->images[(size_t)sample * PIXELS + p];
            want = fp8_encode_scaled(fmaf(pixel, scale, shift), s, LT_FP8_E4M3);
            ck_assert_msg(x8[(size_t)j * PIXELS + p] == want,
                          "%s batch %d of %d, X8 (%d,%d): 0x%02x, want 0x%02x",
                          which ? "train" : "test", b, batch, p, j,
                          x8[(size_t)j * PIXELS + p], want);
          }
          ck_assert_msg(x8t[(size_t)p * ld_t + j] == want,
                        "%s batch %d of %d, X8T (%d,%d): 0x%02x, want 0x%02x",
                        which ? "train" : "test", b, batch, j, p,
                        x8t[(size_t)p * ld_t + j], want);
        }
      }
      free(block);
    }
  }
  epoch_data_destroy(d);
  mnist_dataset_destroy(&data);
}

/* Batch sizes: partial last batches (32: 75 = 2 x 32 + 11; 7: ten of 7
 * and one of 5, X8T of 16 rows, half a tile), one larger than either
 * split (128), and 1. */
static const int batches[] = {32, 7, 128, 1};

START_TEST(the_typed_gather_rounds_each_pixel_once) {
  for (int t = 0; t < LT_DTYPE_COUNT; t++)
    for (size_t i = 0; i < sizeof batches / sizeof batches[0]; i++)
      check_typed((lt_dtype)t, batches[i]);
}
END_TEST

/* And 40: X8T of 48 rows, a tile and a half. */
START_TEST(the_fp8_gather_casts_x8_and_x8t) {
  for (size_t i = 0; i < sizeof batches / sizeof batches[0]; i++)
    check_fp8(batches[i]);
  check_fp8(40);
}
END_TEST

START_TEST(rows_of_no_whole_chunks_are_refused) {
  test_rng rng;
  test_rng_init(&rng, seed + 77);
  mnist_dataset data = test_random_dataset(&rng, TRAIN, 0);
  epoch_data *d = NULL;
  ck_assert_int_eq(
      epoch_data_create(&d, &data, 32, LT_DTYPE_F32, 0, scale, shift, 0), 0);
  const epoch_split *t = &d->train;
  ck_assert_int_eq(epoch_gather_batches(
                       LT_DTYPE_F32, t->d_x, t->d_y, t->d_images, t->d_labels,
                       t->d_order, TRAIN, 32, 100 * 32, 100, scale, shift, 0),
                   -1);
  ck_assert_int_eq(epoch_gather_fp8(t->d_x, t->d_y, t->d_images, t->d_labels,
                                    t->d_order, TRAIN, 32, 1 << 16, 100, scale,
                                    shift, 1.0f, 0),
                   -1);
  epoch_data_destroy(d);
  mnist_dataset_destroy(&data);
}
END_TEST

int main(void) {
  test_require_gpu("epoch_gather");
  seed = test_seed("epoch_gather");
  Suite *suite = suite_create("epoch_gather");
  TCase *tc = tcase_create("gathers");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, the_typed_gather_rounds_each_pixel_once);
  tcase_add_test(tc, the_fp8_gather_casts_x8_and_x8t);
  tcase_add_test(tc, rows_of_no_whole_chunks_are_refused);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 1);
}
