/* test_mnist_real.c: the real MNIST and Fashion-MNIST files load with the
 * published counts, label histograms and pixel sums; with both present, a
 * Fashion-MNIST copy beside an MNIST one is refused. Checks each set that
 * is present, says which one was not checked and why, and skips (77) only
 * when neither is present. */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data/mnist.h"
#include "tests/test_util.h"

typedef struct known_split {
  int count;
  int labels[10];
  unsigned long long pixel_sum;
} known_split;

typedef struct known_set {
  const char *name, *env;
  const char *candidates[3];
  known_split train, test;
  float pixel_mean, pixel_std; /* the loader's, bit for bit (their sums are
                                  exact: data/mnist.c) */
} known_set;

/* MNIST: ../shared/data/README.md. Fashion-MNIST: 6000 / 1000 per class
 * (its paper); pixel sums of the published files. */
static const known_set sets[2] = {
    {"MNIST",
     "MNIST_DIR",
     {MNIST_SOURCE_DIR "/data/mnist", MNIST_SOURCE_DIR "/../shared/data/mnist",
      NULL},
     {60000,
      {5923, 6742, 5958, 6131, 5842, 5421, 5918, 6265, 5851, 5949},
      1567298545ull},
     {10000,
      {980, 1135, 1032, 1010, 982, 892, 958, 1028, 974, 1009},
      264923200ull},
     0.130660474f,
     0.308107793f},
    {"Fashion-MNIST",
     "FASHION_MNIST_DIR",
     {MNIST_SOURCE_DIR "/data/fashion-mnist",
      MNIST_SOURCE_DIR "/../shared/data/fashion-mnist", NULL},
     {60000,
      {6000, 6000, 6000, 6000, 6000, 6000, 6000, 6000, 6000, 6000},
      3431114169ull},
     {10000,
      {1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000},
      573469082ull},
     0.286040604f,
     0.353024244f},
};

static const char *dirs[2];

static void check_split(const mnist_split *s, const known_split *k,
                        const char *what) {
  ck_assert_msg(s->count == k->count, "%s: %d samples, expected %d", what,
                s->count, k->count);
  int histogram[10] = {0};
  unsigned long long sum = 0;
  for (int i = 0; i < s->count; i++)
    histogram[s->labels[i]]++;
  for (size_t i = 0; i < (size_t)s->count * MNIST_PIXELS; i++)
    sum += s->images[i];
  for (int c = 0; c < 10; c++)
    ck_assert_msg(histogram[c] == k->labels[c], "%s: %d labels %d, expected %d",
                  what, histogram[c], c, k->labels[c]);
  ck_assert_msg(sum == k->pixel_sum, "%s: pixel sum %llu, expected %llu", what,
                sum, k->pixel_sum);
}

START_TEST(real_data_matches_published_facts) {
  const known_set *k = &sets[_i];
  mnist_dataset data;
  idx_error err;
  ck_assert_msg(mnist_dataset_load(&data, dirs[_i], &err) == IDX_OK, "%s",
                err.message);
  char what[64];
  snprintf(what, sizeof what, "%s train", k->name);
  check_split(&data.train, &k->train, what);
  snprintf(what, sizeof what, "%s test", k->name);
  check_split(&data.test, &k->test, what);
  if (_i == 0) ck_assert_float_eq_tol(data.pixel_mean, 0.1307f, 1e-4f);
  ck_assert_msg(
      data.pixel_mean == k->pixel_mean && data.pixel_std == k->pixel_std,
      "%s: pixel mean %.9g and deviation %.9g, expected %.9g and "
      "%.9g",
      k->name, data.pixel_mean, data.pixel_std, k->pixel_mean, k->pixel_std);
  /* The files read are recorded, in the folder, and exist. */
  for (int f = 0; f < MNIST_FILE_COUNT; f++) {
    struct stat info;
    ck_assert_msg(strncmp(data.files[f], dirs[_i], strlen(dirs[_i])) == 0 &&
                      stat(data.files[f], &info) == 0,
                  "%s: file %d recorded as '%s'", k->name, f, data.files[f]);
  }
  mnist_dataset_destroy(&data);
}
END_TEST

/* The real Fashion-MNIST gz files, and beside them MNIST's test labels as
 * a raw copy: the loader must name both test labels files. */
START_TEST(fashion_beside_mnist_is_refused) {
  char dir[4096], path[8500], target[4200];
  ck_assert_int_eq(test_make_temp_dir(dir, sizeof dir), 0);
  const char *names[4] = {
      "train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
      "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"};
  for (int f = 0; f < 4; f++) {
    snprintf(path, sizeof path, "%s/%s", dir, names[f]);
    snprintf(target, sizeof target, "%s/%s", dirs[1], names[f]);
    ck_assert_int_eq(symlink(target, path), 0);
  }
  idx_array labels;
  idx_error err;
  snprintf(target, sizeof target, "%s/t10k-labels-idx1-ubyte.gz", dirs[0]);
  ck_assert_msg(idx_read(&labels, target, &err) == IDX_OK, "%s", err.message);
  char raw[4200];
  snprintf(raw, sizeof raw, "%s/t10k-labels-idx1-ubyte", dir);
  ck_assert_int_eq(
      test_write_idx(raw, 0x08, 1, labels.dims, labels.data, labels.count, 0),
      0);
  idx_array_destroy(&labels);
  mnist_dataset data;
  enum idx_status status = mnist_dataset_load(&data, dir, &err);
  test_remove_dir(dir);
  ck_assert_msg(status == IDX_ERR_CONTENT,
                "expected different data, got %d: %s", status,
                status ? err.message : "loaded");
  snprintf(path, sizeof path, "%s/%s and %s ", dir, names[3], raw);
  ck_assert_msg(strstr(err.message, path) &&
                    strstr(err.message, "hold different data"),
                "%s", err.message);
}
END_TEST

int main(void) {
  int found = 0;
  for (int i = 0; i < 2; i++) {
    char why[1024];
    dirs[i] = test_find_data(sets[i].env, sets[i].candidates, why, sizeof why);
    if (dirs[i])
      found++;
    else
      printf("%s: not checked: %s\n", sets[i].name, why);
  }
  if (found == 0) {
    printf("SKIP: no real data set found (set MNIST_DIR or FASHION_MNIST_DIR, "
           "or run scripts/download_mnist.sh)\n");
    return TEST_SKIP;
  }
  Suite *suite = suite_create("mnist_real");
  TCase *tc = tcase_create("published facts");
  tcase_set_timeout(tc, 60);
  for (int i = 0; i < 2; i++)
    if (dirs[i])
      tcase_add_loop_test(tc, real_data_matches_published_facts, i, i + 1);
  if (dirs[0] && dirs[1])
    tcase_add_test(tc, fashion_beside_mnist_is_refused);
  else
    printf("Fashion-MNIST beside MNIST: not checked: needs both sets\n");
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 0);
}
