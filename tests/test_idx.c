/* test_idx.c: the idx reader and MNIST checks on malformed input
 * (table-driven: every case asserts the status and the key words of the
 * message, which must also name the file), and gzip/raw round trips. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <zlib.h>

#include "data/idx.h"
#include "data/mnist.h"
#include "test_util.h"

static char dir[4096];

static void setup(void) { ck_assert_int_eq(test_make_temp_dir(dir, sizeof dir), 0); }
static void teardown(void) { test_remove_dir(dir); }

/* A valid labels file body: 5 labels. */
static const uint8_t labels5[5] = {0, 1, 2, 3, 9};

typedef struct bad_case {
  const char *name;
  /* Writes the file at `path`; returns 0. */
  int (*make)(const char *path);
  enum idx_status status;
  const char *words[3];  /* each must appear in the message */
} bad_case;

static int make_nothing(const char *path) { (void)path; return 0; }
static int make_empty(const char *path) { return test_write_bytes(path, "", 0, 0); }
static int make_directory(const char *path) { return mkdir(path, 0700); }
static int make_html(const char *path) {
  const char *page = "<html><body>Not Found</body></html>";
  return test_write_bytes(path, page, strlen(page), 0);
}
static int make_bad_type(const char *path) {
  uint32_t dims[1] = {5};
  return test_write_idx(path, 0x07, 1, dims, labels5, 5, 0);
}
static int make_rank0(const char *path) {
  return test_write_idx(path, 0x08, 0, NULL, NULL, 0, 0);
}
static int make_rank9(const char *path) {
  uint32_t dims[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  return test_write_idx(path, 0x08, 9, dims, labels5, 1, 0);
}
static int make_short_magic(const char *path) {
  return test_write_bytes(path, "\0\0\x08", 3, 0);
}
static int make_short_dims(const char *path) {
  const uint8_t bytes[] = {0, 0, 8, 3, 0, 0, 0, 5, 0, 0};
  return test_write_bytes(path, bytes, sizeof bytes, 0);
}
static int make_truncated_raw(const char *path) {
  uint32_t dims[1] = {6};
  return test_write_idx(path, 0x08, 1, dims, labels5, 5, 0);
}
static int make_truncated_gz(const char *path) {
  uint32_t dims[1] = {6};
  return test_write_idx(path, 0x08, 1, dims, labels5, 5, 1);
}
static int make_trailing_raw(const char *path) {
  uint32_t dims[1] = {4};
  return test_write_idx(path, 0x08, 1, dims, labels5, 5, 0);
}
static int make_trailing_gz(const char *path) {
  uint32_t dims[1] = {4};
  return test_write_idx(path, 0x08, 1, dims, labels5, 5, 1);
}
static int make_corrupt_gz(const char *path) {
  const uint8_t bytes[] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3,
                           0xde, 0xad, 0xbe, 0xef, 0x01, 0x02, 0x03};
  return test_write_bytes(path, bytes, sizeof bytes, 0);
}
/* A real gzip stream cut in half. */
static int make_cut_gz(const char *path) {
  uint8_t payload[4000];
  for (size_t i = 0; i < sizeof payload; i++) payload[i] = (uint8_t)(i * 31 % 251);
  uint32_t dims[1] = {sizeof payload};
  if (test_write_idx(path, 0x08, 1, dims, payload, sizeof payload, 1) != 0) return -1;
  struct stat info;
  if (stat(path, &info) != 0) return -1;
  return truncate(path, info.st_size / 2);
}
static int make_overflow(const char *path) {
  uint32_t dims[4] = {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu};
  return test_write_idx(path, 0x08, 4, dims, NULL, 0, 0);
}
/* 20 bytes that claim 1 GiB + of doubles. */
static int make_absurd(const char *path) {
  uint32_t dims[3] = {60000, 28000, 28};
  return test_write_idx(path, 0x0E, 3, dims, "abcd", 4, 0);
}
/* A tiny gzip file claiming 1 GiB of bytes: allowed by size, so only
 * reading finds the lie; the loader must not allocate 1 GiB first. */
static int make_big_claim_gz(const char *path) {
  uint32_t dims[3] = {1u << 20, 32, 32};
  return test_write_idx(path, 0x08, 3, dims, "abcd", 4, 1);
}

static const bad_case bad_cases[] = {
    {"missing", make_nothing, IDX_ERR_OPEN, {"found none", "download_mnist.sh"}},
    {"empty", make_empty, IDX_ERR_EMPTY, {"empty", "0 bytes"}},
    {"directory", make_directory, IDX_ERR_OPEN, {"directory"}},
    {"html page", make_html, IDX_ERR_HEADER, {"magic", "web page"}},
    {"bad type code", make_bad_type, IDX_ERR_TYPE, {"type code", "0x07"}},
    {"rank 0", make_rank0, IDX_ERR_RANK, {"dimensions", "found 0"}},
    {"rank 9", make_rank9, IDX_ERR_RANK, {"dimensions", "found 9"}},
    {"short magic", make_short_magic, IDX_ERR_HEADER, {"magic", "3 byte"}},
    {"short dims", make_short_dims, IDX_ERR_HEADER, {"dimension sizes", "truncated"}},
    {"truncated raw", make_truncated_raw, IDX_ERR_TRUNCATED, {"truncated", "13-byte"}},
    {"truncated gz", make_truncated_gz, IDX_ERR_TRUNCATED, {"expected 6 bytes", "found 5"}},
    {"trailing raw", make_trailing_raw, IDX_ERR_TRAILING, {"trailing"}},
    {"trailing gz", make_trailing_gz, IDX_ERR_TRAILING, {"trailing", "4 bytes"}},
    {"corrupt gzip", make_corrupt_gz, IDX_ERR_GZIP, {"gzip", "corrupt"}},
    {"cut gzip", make_cut_gz, IDX_ERR_GZIP, {"gzip", "truncated"}},
    {"overflowing dims", make_overflow, IDX_ERR_SIZE, {"claim more"}},
    {"absurd claim", make_absurd, IDX_ERR_SIZE, {"claim more"}},
    {"big claim, tiny gzip", make_big_claim_gz, IDX_ERR_TRUNCATED, {"truncated", "found 4"}},
};

START_TEST(bad_input_is_named) {
  const bad_case *c = &bad_cases[_i];
  char path[4200];
  snprintf(path, sizeof path, "%s/case-%d", dir, _i);
  ck_assert_msg(c->make(path) == 0, "%s: could not write the case", c->name);
#if !defined(__SANITIZE_ADDRESS__)
  /* Each case runs in a forked child: cap its address space at 512 MiB so
   * that a loader trusting a header's 1 GiB claim fails loudly. (ASan
   * reserves terabytes of address space, so not under ASan.) */
  struct rlimit cap = {512u << 20, 512u << 20};
  setrlimit(RLIMIT_AS, &cap);
#endif
  idx_array array;
  idx_error err;
  enum idx_status status = idx_read(&array, path, &err);
  ck_assert_msg(status == c->status, "%s: expected status %d, got %d (%s)",
                c->name, c->status, status, err.message);
  ck_assert_ptr_null(array.data);
  ck_assert_msg(strstr(err.message, path) != NULL,
                "%s: message does not name the file: %s", c->name, err.message);
  for (int w = 0; w < 3 && c->words[w]; w++)
    ck_assert_msg(strstr(err.message, c->words[w]) != NULL,
                  "%s: message lacks '%s': %s", c->name, c->words[w],
                  err.message);
}
END_TEST

/* MNIST-level checks: a pair of files that are valid idx but not MNIST. */
typedef struct split_case {
  const char *name;
  int image_type, image_rank;
  uint32_t image_dims[3];
  int label_rank;
  uint32_t label_dims[3];
  uint8_t bad_label;     /* written at index 1 when non-zero */
  const char *word;
  int blame_labels;      /* message must name the labels file */
} split_case;

static const split_case split_cases[] = {
    {"label out of range", 0x08, 3, {2, 28, 28}, 1, {2}, 10, "labels 0 to 9", 1},
    {"count mismatch", 0x08, 3, {3, 28, 28}, 1, {2}, 0, "expected 3 labels", 1},
    {"not 28x28", 0x08, 3, {2, 27, 28}, 1, {2}, 0, "28x28", 0},
    {"images as labels", 0x08, 1, {2}, 3, {2, 28, 28}, 0, "swapped", 0},
    {"float images", 0x0D, 3, {1, 28, 28}, 1, {1}, 0, "unsigned bytes", 0},
    {"rank 2 images", 0x08, 2, {2, 784}, 1, {2}, 0, "3 dimensions", 0},
};

static size_t dims_count(int rank, const uint32_t *dims) {
  size_t n = 1;
  for (int d = 0; d < rank; d++) n *= dims[d];
  return n;
}

START_TEST(bad_split_is_named) {
  const split_case *c = &split_cases[_i];
  char images[4200], labels[4200];
  snprintf(images, sizeof images, "%s/images-%d", dir, _i);
  snprintf(labels, sizeof labels, "%s/labels-%d", dir, _i);
  size_t image_bytes = dims_count(c->image_rank, c->image_dims) *
                       idx_type_size(c->image_type);
  size_t label_bytes = dims_count(c->label_rank, c->label_dims);
  uint8_t *a = calloc(image_bytes, 1), *b = calloc(label_bytes, 1);
  if (c->bad_label) b[1] = c->bad_label;
  ck_assert_int_eq(test_write_idx(images, c->image_type, c->image_rank,
                                  c->image_dims, a, image_bytes, 0), 0);
  ck_assert_int_eq(test_write_idx(labels, 0x08, c->label_rank, c->label_dims,
                                  b, label_bytes, 1), 0);
  free(a);
  free(b);
  mnist_split split;
  idx_error err;
  ck_assert_int_eq(mnist_split_load(&split, images, labels, &err), IDX_ERR_CONTENT);
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
  ck_assert_msg(mnist_dataset_load(&a, gz_dir, &err) == IDX_OK, "%s", err.message);
  ck_assert_msg(mnist_dataset_load(&b, raw_dir, &err) == IDX_OK, "%s", err.message);
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
  ck_assert_msg(mnist_dataset_load(&data, dir, &err) == IDX_OK, "%s", err.message);
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
  ck_assert_msg(strstr(err.message, "t10k-labels") && strstr(err.message, "labels file"),
                "%s", err.message);
  ck_assert_ptr_null(data.train.images);
}
END_TEST

START_TEST(batch_fill_normalises_columns) {
  ck_assert_int_eq(test_write_tiny_mnist(dir, 5, 2, 0), 0);
  mnist_dataset data;
  idx_error err;
  ck_assert_msg(mnist_dataset_load(&data, dir, &err) == IDX_OK, "%s", err.message);
  int indices[2] = {3, 0};
  float x[2 * 784];
  mnist_batch_fill(x, &data.train, indices, 2, 0.5f, 0.25f);
  for (int j = 0; j < 2; j++)
    for (int p = 0; p < 784; p += 97) {
      float want = (data.train.images[indices[j] * 784 + p] / 255.0f - 0.5f) / 0.25f;
      ck_assert_float_eq_tol(x[j * 784 + p], want, 1e-5f);
    }
  mnist_dataset_destroy(&data);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("idx");
  TCase *tc = tcase_create("bad input");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_loop_test(tc, bad_input_is_named, 0,
                      (int)(sizeof bad_cases / sizeof bad_cases[0]));
  tcase_add_loop_test(tc, bad_split_is_named, 0,
                      (int)(sizeof split_cases / sizeof split_cases[0]));
  tcase_add_test(tc, missing_directory_and_file_are_named);
  suite_add_tcase(suite, tc);
  TCase *good = tcase_create("good input");
  tcase_add_checked_fixture(good, setup, teardown);
  tcase_add_test(good, gzip_and_raw_load_identically);
  tcase_add_test(good, dotted_file_names_are_found);
  tcase_add_test(good, batch_fill_normalises_columns);
  suite_add_tcase(suite, good);
  return test_run_suite(suite, 0);
}
