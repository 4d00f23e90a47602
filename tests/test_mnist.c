/* test_mnist.c: MNIST's checks on top of the idx reader (table-driven over
 * pairs of valid idx files that are not MNIST), gzip and raw copies loading
 * identically, file names, and the normalised batches. Which file is read
 * when several are present: test_mnist_files.c. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "data/idx.h"
#include "data/mnist.h"
#include "tests/test_util.h"

static char dir[4096];

static void setup(void) {
  ck_assert_int_eq(test_make_temp_dir(dir, sizeof dir), 0);
}
static void teardown(void) {
  test_remove_dir(dir);
}

/* MNIST-level checks: a pair of files that are valid idx but not MNIST. */
typedef struct split_case {
  const char *name;
  int image_type, image_rank;
  uint32_t image_dims[3];
  int label_rank;
  uint32_t label_dims[3];
  uint8_t bad_label; /* written at index 1 when non-zero */
  const char *word;
  int blame_labels; /* message must name the labels file */
} split_case;

static const split_case split_cases[] = {
    {"label out of range",
     0x08,
     3,
     {2, 28, 28},
     1,
     {2},
     10,
     "labels 0 to 9",
     1},
    {"count mismatch", 0x08, 3, {3, 28, 28}, 1, {2}, 0, "expected 3 labels", 1},
    {"not 28x28", 0x08, 3, {2, 27, 28}, 1, {2}, 0, "28x28", 0},
    {"images as labels", 0x08, 1, {2}, 3, {2, 28, 28}, 0, "swapped", 0},
    {"float images", 0x0D, 3, {1, 28, 28}, 1, {1}, 0, "unsigned bytes", 0},
    {"rank 2 images", 0x08, 2, {2, 784}, 1, {2}, 0, "3 dimensions", 0},
};

static size_t dims_count(int rank, const uint32_t *dims) {
  size_t n = 1;
  for (int d = 0; d < rank; d++)
    n *= dims[d];
  return n;
}

START_TEST(bad_split_is_named) {
  const split_case *c = &split_cases[_i];
  char images[4200], labels[4200];
  snprintf(images, sizeof images, "%s/images-%d", dir, _i);
  snprintf(labels, sizeof labels, "%s/labels-%d", dir, _i);
  size_t image_bytes =
      dims_count(c->image_rank, c->image_dims) * idx_type_size(c->image_type);
  size_t label_bytes = dims_count(c->label_rank, c->label_dims);
  uint8_t *a = calloc(image_bytes, 1), *b = calloc(label_bytes, 1);
  if (c->bad_label) b[1] = c->bad_label;
  ck_assert_int_eq(test_write_idx(images, c->image_type, c->image_rank,
                                  c->image_dims, a, image_bytes, 0),
                   0);
  ck_assert_int_eq(test_write_idx(labels, 0x08, c->label_rank, c->label_dims, b,
                                  label_bytes, 1),
                   0);
  free(a);
  free(b);
  mnist_split split;
  idx_error err;
  ck_assert_int_eq(mnist_split_load(&split, images, labels, &err),
                   IDX_ERR_CONTENT);
  ck_assert_ptr_null(split.images);
  ck_assert_msg(strstr(err.message, c->word), "%s: lacks '%s': %s", c->name,
                c->word, err.message);
  ck_assert_msg(strstr(err.message, c->blame_labels ? labels : images),
                "%s: names the wrong file: %s", c->name, err.message);
}
END_TEST

START_TEST(gzip_and_raw_load_identically) {
  char gz_dir[4200], raw_dir[4200];
  snprintf(gz_dir, sizeof gz_dir, "%s/gz", dir);
  snprintf(raw_dir, sizeof raw_dir, "%s/raw", dir);
  ck_assert_int_eq(mkdir(gz_dir, 0700), 0);
  ck_assert_int_eq(mkdir(raw_dir, 0700), 0);
  ck_assert_int_eq(test_write_tiny_mnist(gz_dir, 30, 7, 1), 0);
  ck_assert_int_eq(test_write_tiny_mnist(raw_dir, 30, 7, 0), 0);
  mnist_dataset a, b;
  idx_error err;
  ck_assert_msg(mnist_dataset_load(&a, gz_dir, &err) == IDX_OK, "%s",
                err.message);
  ck_assert_msg(mnist_dataset_load(&b, raw_dir, &err) == IDX_OK, "%s",
                err.message);
  ck_assert_int_eq(a.train.count, 30);
  ck_assert_int_eq(a.test.count, 7);
  ck_assert_int_eq(b.train.count, 30);
  ck_assert_mem_eq(a.train.images, b.train.images, 30 * 784);
  ck_assert_mem_eq(a.train.labels, b.train.labels, 30);
  ck_assert_mem_eq(a.test.images, b.test.images, 7 * 784);
  ck_assert_mem_eq(a.test.labels, b.test.labels, 7);
  ck_assert_float_eq(a.pixel_mean, b.pixel_mean);
  mnist_dataset_destroy(&a);
  mnist_dataset_destroy(&b);
}
END_TEST

START_TEST(dotted_file_names_are_found) {
  /* The "train-images.idx3-ubyte" variant some mirrors use. */
  ck_assert_int_eq(test_write_tiny_mnist(dir, 4, 3, 0), 0);
  const char *pairs[4][2] = {
      {"train-images-idx3-ubyte", "train-images.idx3-ubyte"},
      {"train-labels-idx1-ubyte", "train-labels.idx1-ubyte"},
      {"t10k-images-idx3-ubyte", "t10k-images.idx3-ubyte"},
      {"t10k-labels-idx1-ubyte", "t10k-labels.idx1-ubyte"}};
  for (int i = 0; i < 4; i++) {
    char from[4300], to[4300];
    snprintf(from, sizeof from, "%s/%s", dir, pairs[i][0]);
    snprintf(to, sizeof to, "%s/%s", dir, pairs[i][1]);
    ck_assert_int_eq(rename(from, to), 0);
  }
  mnist_dataset data;
  idx_error err;
  ck_assert_msg(mnist_dataset_load(&data, dir, &err) == IDX_OK, "%s",
                err.message);
  ck_assert_int_eq(data.train.count, 4);
  mnist_dataset_destroy(&data);
}
END_TEST

START_TEST(missing_directory_and_file_are_named) {
  mnist_dataset data;
  idx_error err;
  char missing[4200];
  snprintf(missing, sizeof missing, "%s/nowhere", dir);
  ck_assert_int_eq(mnist_dataset_load(&data, missing, &err), IDX_ERR_OPEN);
  ck_assert_ptr_nonnull(strstr(err.message, missing));
  ck_assert_ptr_nonnull(strstr(err.message, "download_mnist.sh"));
  /* Only the training files: the test labels are named as missing. */
  ck_assert_int_eq(test_write_tiny_mnist(dir, 4, 3, 1), 0);
  char path[4300];
  snprintf(path, sizeof path, "%s/t10k-labels-idx1-ubyte.gz", dir);
  ck_assert_int_eq(remove(path), 0);
  ck_assert_int_eq(mnist_dataset_load(&data, dir, &err), IDX_ERR_OPEN);
  ck_assert_msg(strstr(err.message, "t10k-labels") &&
                    strstr(err.message, "labels file"),
                "%s", err.message);
  ck_assert_ptr_null(data.train.images);
}
END_TEST

START_TEST(pixel_transform_is_the_trainers_formula) {
  ck_assert_int_eq(test_write_tiny_mnist(dir, 5, 2, 0), 0);
  mnist_dataset data;
  idx_error err;
  ck_assert_msg(mnist_dataset_load(&data, dir, &err) == IDX_OK, "%s",
                err.message);
  float scale, shift;
  mnist_pixel_transform(&scale, &shift, &data);
  /* Bit for bit the formula, in float (train/trainer.c, --epochs 0 and
   * mnist_predict take it through trainer_config_pixel_transform). */
  float want_scale = 1.0f / (255.0f * data.pixel_std);
  float want_shift = -data.pixel_mean / data.pixel_std;
  ck_assert_mem_eq(&scale, &want_scale, sizeof scale);
  ck_assert_mem_eq(&shift, &want_shift, sizeof shift);
  mnist_dataset_destroy(&data);
}
END_TEST

/* Four training images of one value each, 0, 51, 102 and 255: the pixels
 * scaled to [0, 1] have mean 0.4 and variance 0.3 - 0.16 = 0.14. */
START_TEST(pixel_statistics_are_the_training_pixels) {
  static const uint8_t values[4] = {0, 51, 102, 255};
  uint8_t images[4 * 784], labels[4] = {0, 1, 2, 3};
  for (int i = 0; i < 4; i++)
    memset(images + i * 784, values[i], 784);
  const uint32_t train_dims[3] = {4, 28, 28}, test_dims[3] = {1, 28, 28};
  const uint32_t train_count[1] = {4}, test_count[1] = {1};
  char path[4200];
  snprintf(path, sizeof path, "%s/train-images-idx3-ubyte", dir);
  ck_assert_int_eq(
      test_write_idx(path, 0x08, 3, train_dims, images, sizeof images, 0), 0);
  snprintf(path, sizeof path, "%s/train-labels-idx1-ubyte", dir);
  ck_assert_int_eq(
      test_write_idx(path, 0x08, 1, train_count, labels, sizeof labels, 0), 0);
  snprintf(path, sizeof path, "%s/t10k-images-idx3-ubyte", dir);
  ck_assert_int_eq(test_write_idx(path, 0x08, 3, test_dims, images, 784, 0), 0);
  snprintf(path, sizeof path, "%s/t10k-labels-idx1-ubyte", dir);
  ck_assert_int_eq(test_write_idx(path, 0x08, 1, test_count, labels, 1, 0), 0);
  mnist_dataset data;
  idx_error err;
  ck_assert_msg(mnist_dataset_load(&data, dir, &err) == IDX_OK, "%s",
                err.message);
  ck_assert_float_eq_tol(data.pixel_mean, 0.4f, 1e-7f);
  ck_assert_float_eq_tol(data.pixel_std, 0.374165739f, 1e-7f);
  mnist_dataset_destroy(&data);
}
END_TEST

START_TEST(batch_fill_normalises_columns) {
  ck_assert_int_eq(test_write_tiny_mnist(dir, 5, 2, 0), 0);
  mnist_dataset data;
  idx_error err;
  ck_assert_msg(mnist_dataset_load(&data, dir, &err) == IDX_OK, "%s",
                err.message);
  /* mean 0.5, std 0.25: values well away from the tiny set's own. */
  mnist_dataset stats = {.pixel_mean = 0.5f, .pixel_std = 0.25f};
  float scale, shift;
  mnist_pixel_transform(&scale, &shift, &stats);
  int indices[2] = {3, 0};
  float x[2 * 784];
  mnist_batch_fill(x, &data.train, indices, 2, scale, shift);
  for (int j = 0; j < 2; j++)
    for (int p = 0; p < 784; p++) {
      float pixel = data.train.images[indices[j] * 784 + p];
      /* Exactly the documented formula, and what it stands for. */
      ck_assert_float_eq(x[j * 784 + p], pixel * scale + shift);
      ck_assert_float_eq_tol(x[j * 784 + p], (pixel / 255.0f - 0.5f) / 0.25f,
                             1e-5f);
    }
  mnist_dataset_destroy(&data);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("mnist");
  TCase *tc = tcase_create("bad input");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_loop_test(tc, bad_split_is_named, 0,
                      (int)(sizeof split_cases / sizeof split_cases[0]));
  tcase_add_test(tc, missing_directory_and_file_are_named);
  suite_add_tcase(suite, tc);
  TCase *good = tcase_create("good input");
  tcase_add_checked_fixture(good, setup, teardown);
  tcase_add_test(good, gzip_and_raw_load_identically);
  tcase_add_test(good, dotted_file_names_are_found);
  tcase_add_test(good, pixel_transform_is_the_trainers_formula);
  tcase_add_test(good, pixel_statistics_are_the_training_pixels);
  tcase_add_test(good, batch_fill_normalises_columns);
  suite_add_tcase(suite, good);
  return test_run_suite(suite, 0);
}
