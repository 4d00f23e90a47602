/* test_mnist_files.c: which MNIST file is read (the file rule of
 * data/mnist_files.h), table-driven over folder states: gz or raw alone,
 * both (same or different), damaged copies beside good ones, dotted names;
 * and data folders that cannot be read (their real reason is reported). */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data/mnist.h"
#include "tests/test_util.h"

static char dir[4096];

static void setup(void) {
  ck_assert_int_eq(test_make_temp_dir(dir, sizeof dir), 0);
}
static void teardown(void) {
  test_remove_dir(dir);
}

static const char *const stems[MNIST_FILE_COUNT][2] = {{"train-images", "idx3"},
                                                       {"train-labels", "idx1"},
                                                       {"t10k-images", "idx3"},
                                                       {"t10k-labels", "idx1"}};

enum { GZ = 1, DOTTED = 2 };

static void name_of(char *path, size_t size, const char *folder, int f,
                    int form) {
  snprintf(path, size, "%s/%s%s%s-ubyte%s", folder, stems[f][0],
           form & DOTTED ? "." : "-", stems[f][1], form & GZ ? ".gz" : "");
}

/* Writes one file of a small data set (12 train, 5 test images) whose
 * pixels and labels depend on `variant` (1 "MNIST", 2 "Fashion-MNIST"). */
static int write_file(const char *folder, int f, int variant, int form) {
  char path[4200];
  name_of(path, sizeof path, folder, f, form);
  uint32_t count = f < MNIST_TEST_IMAGES ? 12 : 5;
  uint8_t bytes[12 * 784];
  int images = f == MNIST_TRAIN_IMAGES || f == MNIST_TEST_IMAGES;
  size_t size = images ? count * 784 : count;
  for (size_t i = 0; i < size; i++)
    bytes[i] = (uint8_t)(images ? i * 7 * variant + f : (i * variant + f) % 10);
  uint32_t dims[3] = {count, 28, 28};
  return test_write_idx(path, 0x08, images ? 3 : 1, dims, bytes, size,
                        form & GZ);
}

static int write_set(const char *folder, int variant, int form) {
  for (int f = 0; f < MNIST_FILE_COUNT; f++)
    if (write_file(folder, f, variant, form) != 0) return -1;
  return 0;
}

static int cut_in_half(const char *folder, int f, int form) {
  char path[4200];
  struct stat info;
  name_of(path, sizeof path, folder, f, form);
  if (stat(path, &info) != 0) return -1;
  return truncate(path, info.st_size / 2);
}

static int gz_only(const char *d) {
  return write_set(d, 1, GZ);
}
static int raw_only(const char *d) {
  return write_set(d, 1, 0);
}
static int both_same(const char *d) {
  return write_set(d, 1, GZ) | write_set(d, 1, 0);
}
/* The raw train images differ from the gz in their last byte only. */
static int one_byte_different(const char *d) {
  char path[4200];
  name_of(path, sizeof path, d, MNIST_TRAIN_IMAGES, 0);
  if (both_same(d) != 0) return -1;
  FILE *f = fopen(path, "r+b");
  if (!f) return -1;
  int ok = fseek(f, -1, SEEK_END) == 0 && fputc(0xAB, f) != EOF;
  return fclose(f) == 0 && ok ? 0 : -1;
}
static int cut_gz_beside_raw(const char *d) {
  return both_same(d) | cut_in_half(d, MNIST_TRAIN_IMAGES, GZ);
}
static int cut_raw_beside_gz(const char *d) {
  return both_same(d) | cut_in_half(d, MNIST_TEST_IMAGES, 0);
}
static int dotted_raw(const char *d) {
  return write_set(d, 1, DOTTED);
}
static int dotted_gz_beside_raw(const char *d) {
  return write_set(d, 1, DOTTED | GZ) | write_set(d, 1, 0);
}
/* Same shapes, other pixels and labels: a Fashion-MNIST gz left beside an
 * MNIST raw copy. */
static int fashion_gz_beside_mnist_raw(const char *d) {
  return write_set(d, 2, GZ) | write_set(d, 1, 0);
}
static int test_labels_differ(const char *d) {
  return write_set(d, 1, GZ) | write_file(d, MNIST_TEST_LABELS, 2, DOTTED);
}
static int empty_folder(const char *d) {
  return d ? 0 : -1;
}
static int directory_beside_raw(const char *d) {
  char path[4200];
  name_of(path, sizeof path, d, MNIST_TRAIN_LABELS, GZ);
  return raw_only(d) | mkdir(path, 0700);
}
static int symlink_loop_beside_raw(const char *d) {
  char path[4200];
  name_of(path, sizeof path, d, MNIST_TRAIN_LABELS, GZ);
  return raw_only(d) | symlink(path, path);
}
/* 20 bytes whose header claims 2^30 images of 1x1. */
static int images_of_one_pixel(const char *d) {
  char path[4200];
  name_of(path, sizeof path, d, MNIST_TRAIN_IMAGES, GZ);
  uint32_t dims[3] = {1u << 30, 1, 1};
  return write_set(d, 1, GZ) |
         test_write_idx(path, 0x08, 3, dims, "abcd", 4, 1);
}

/* The only train labels copy: a link to a file that is not there. */
static int dangling_link_only(const char *d) {
  char path[4200];
  name_of(path, sizeof path, d, MNIST_TRAIN_LABELS, 0);
  int bad = raw_only(d) | unlink(path);
  name_of(path, sizeof path, d, MNIST_TRAIN_LABELS, GZ);
  return bad | symlink("gone.gz", path);
}
/* Writes n bytes at `offset` into file f's raw copy. */
static int patch(const char *d, int f, long offset, const char *bytes,
                 size_t n) {
  char path[4200];
  name_of(path, sizeof path, d, f, 0);
  FILE *file = fopen(path, "r+b");
  if (!file) return -1;
  int bad =
      fseek(file, offset, SEEK_SET) != 0 || fwrite(bytes, 1, n, file) != n;
  return fclose(file) != 0 || bad ? -1 : 0;
}
/* A labels file whose rank byte reads 2: its first four labels become a
 * second dim (0x09090909), so the sizes claim ~1.8 GB. */
static int labels_of_rank_2(const char *d) {
  return raw_only(d) | patch(d, MNIST_TRAIN_LABELS, 3, "\x02", 1) |
         patch(d, MNIST_TRAIN_LABELS, 8, "\x09\x09\x09\x09", 4);
}
/* An images file whose rank byte reads 4 (a fourth dim of 0x80808080). */
static int images_of_rank_4(const char *d) {
  return raw_only(d) | patch(d, MNIST_TRAIN_IMAGES, 3, "\x04", 1) |
         patch(d, MNIST_TRAIN_IMAGES, 16, "\x80\x80\x80\x80", 4);
}

typedef struct folder_case {
  const char *name;
  int (*make)(const char *dir);
  enum idx_status status;
  int read_form;        /* IDX_OK: the form of the 4 names recorded */
  int blamed_file;      /* error: the file (enum mnist_file) at fault */
  int blamed_forms[2];  /* ... the copy named first; the second, or -1 */
  const char *words[2]; /* error: each must appear in the message */
} folder_case;

static const folder_case folder_cases[] = {
    {"gz only", gz_only, IDX_OK, GZ, 0, {0, 0}, {NULL}},
    {"raw only", raw_only, IDX_OK, 0, 0, {0, 0}, {NULL}},
    {"gz and raw, the same", both_same, IDX_OK, GZ, 0, {0, 0}, {NULL}},
    {"dotted raw names", dotted_raw, IDX_OK, DOTTED, 0, {0, 0}, {NULL}},
    {"dotted gz and published raw, the same",
     dotted_gz_beside_raw,
     IDX_OK,
     0,
     0,
     {0, 0},
     {NULL}},
    {"gz and raw, one byte different",
     one_byte_different,
     IDX_ERR_CONTENT,
     0,
     MNIST_TRAIN_IMAGES,
     {GZ, 0},
     {"hold different data (same header, first difference at data byte 9407)",
      "download_mnist.sh"}},
    {"Fashion gz beside MNIST raw",
     fashion_gz_beside_mnist_raw,
     IDX_ERR_CONTENT,
     0,
     MNIST_TRAIN_IMAGES,
     {GZ, 0},
     {"hold different data", "first difference at data byte"}},
    {"test labels differ",
     test_labels_differ,
     IDX_ERR_CONTENT,
     0,
     MNIST_TEST_LABELS,
     {GZ, DOTTED},
     {"hold different data", "test labels"}},
    {"cut gz beside a good raw",
     cut_gz_beside_raw,
     IDX_ERR_GZIP,
     0,
     MNIST_TRAIN_IMAGES,
     {GZ, -1},
     {"truncated", "download_mnist.sh"}},
    {"cut raw beside a good gz",
     cut_raw_beside_gz,
     IDX_ERR_TRUNCATED,
     0,
     MNIST_TEST_IMAGES,
     {0, -1},
     {"truncated", "expected"}},
    {"no file",
     empty_folder,
     IDX_ERR_OPEN,
     0,
     MNIST_TRAIN_IMAGES,
     {GZ, -1},
     {"found none", "download_mnist.sh"}},
    {"a directory beside a good raw",
     directory_beside_raw,
     IDX_ERR_OPEN,
     0,
     MNIST_TRAIN_LABELS,
     {GZ, -1},
     {"directory"}},
    {"a symlink loop beside a good raw",
     symlink_loop_beside_raw,
     IDX_ERR_OPEN,
     0,
     MNIST_TRAIN_LABELS,
     {GZ, -1},
     {"Too many levels of symbolic links"}},
    {"a dangling link as the only copy",
     dangling_link_only,
     IDX_ERR_OPEN,
     0,
     MNIST_TRAIN_LABELS,
     {GZ, -1},
     {"found a dangling symbolic link", "'gone.gz'"}},
    {"labels whose rank byte is 2",
     labels_of_rank_2,
     IDX_ERR_CONTENT,
     0,
     MNIST_TRAIN_LABELS,
     {0, -1},
     {"expected labels (1 dimension), found a 2-dimension file", "rank byte"}},
    {"images whose rank byte is 4",
     images_of_rank_4,
     IDX_ERR_CONTENT,
     0,
     MNIST_TRAIN_IMAGES,
     {0, -1},
     {"expected images (3 dimensions: count, 28, 28), found a 4-dimension "
      "file"}},
    {"images of 1x1 pixels",
     images_of_one_pixel,
     IDX_ERR_CONTENT,
     0,
     MNIST_TRAIN_IMAGES,
     {GZ, -1},
     {"expected 28x28 images, found 1x1"}},
};

START_TEST(folder_states) {
  const folder_case *c = &folder_cases[_i];
  ck_assert_msg(c->make(dir) == 0, "%s: could not write the folder", c->name);
  mnist_dataset data;
  idx_error err;
  enum idx_status status = mnist_dataset_load(&data, dir, &err);
  ck_assert_msg(status == c->status, "%s: expected status %d, got %d (%s)",
                c->name, c->status, status, status ? err.message : "loaded");
  char want[4300], other[4300], both[8700];
  if (status == IDX_OK) {
    for (int f = 0; f < MNIST_FILE_COUNT; f++) {
      name_of(want, sizeof want, dir, f, c->read_form);
      ck_assert_msg(strcmp(data.files[f], want) == 0,
                    "%s: recorded %s as read, expected %s", c->name,
                    data.files[f], want);
    }
    ck_assert_int_eq(data.train.count, 12);
    ck_assert_int_eq(data.test.count, 5);
    ck_assert_int_eq(data.train.images[784 + 1], (uint8_t)(785 * 7));
    mnist_dataset_destroy(&data);
    return;
  }
  ck_assert_ptr_null(data.train.images);
  ck_assert_int_eq(data.files[0][0], '\0');
  name_of(want, sizeof want, dir, c->blamed_file, c->blamed_forms[0]);
  if (c->blamed_forms[1] >= 0) {
    name_of(other, sizeof other, dir, c->blamed_file, c->blamed_forms[1]);
    snprintf(both, sizeof both, "%s and %s ", want, other);
  } else {
    snprintf(both, sizeof both, "%s: ", want);
  }
  ck_assert_msg(strstr(err.message, both), "%s: does not name '%s': %s",
                c->name, both, err.message);
  for (int w = 0; w < 2 && c->words[w]; w++)
    ck_assert_msg(strstr(err.message, c->words[w]), "%s: lacks '%s': %s",
                  c->name, c->words[w], err.message);
}
END_TEST

/* Data folders that exist but cannot be read: the reason is stat's own
 * (strerror), with the path, not "found no images file; fetch the data". */
typedef struct unreadable_case {
  const char *name;
  int error;    /* the errno whose strerror text the message must hold */
  int non_root; /* root bypasses permissions: checked only as non-root */
} unreadable_case;

static const unreadable_case unreadable_cases[] = {
    {"a symlink loop", ELOOP, 0},
    {"a path through a regular file", ENOTDIR, 0},
    {"permission denied", EACCES, 1},
};

START_TEST(unreadable_folder_says_why) {
  const unreadable_case *c = &unreadable_cases[_i];
  if (c->non_root && geteuid() == 0) {
    printf("note: %s: not checked, running as root (root is never denied)\n",
           c->name);
    return;
  }
  char folder[4200], named[4300];
  if (c->error == ELOOP) {
    snprintf(folder, sizeof folder, "%s/loop", dir);
    ck_assert_int_eq(symlink(folder, folder), 0);
    snprintf(named, sizeof named, "%s: ", folder);
  } else if (c->error == ENOTDIR) {
    snprintf(folder, sizeof folder, "%s/file/mnist", dir);
    snprintf(named, sizeof named, "%s/file", dir);
    ck_assert_int_eq(test_write_bytes(named, "x", 1, 0), 0);
    snprintf(named, sizeof named, "%s: ", folder);
  } else {
    snprintf(folder, sizeof folder, "%s/locked", dir);
    ck_assert_int_eq(mkdir(folder, 0700), 0);
    ck_assert_int_eq(write_set(folder, 1, GZ), 0);
    ck_assert_int_eq(chmod(folder, 0), 0);
    name_of(named, sizeof named, folder, MNIST_TRAIN_IMAGES, GZ);
  }
  mnist_dataset data;
  idx_error err;
  enum idx_status status = mnist_dataset_load(&data, folder, &err);
  if (c->error == EACCES) chmod(folder, 0700);
  ck_assert_int_eq(status, IDX_ERR_OPEN);
  ck_assert_msg(strstr(err.message, named), "%s: does not name %s: %s", c->name,
                named, err.message);
  ck_assert_msg(strstr(err.message, strerror(c->error)), "%s: lacks '%s': %s",
                c->name, strerror(c->error), err.message);
  ck_assert_msg(!strstr(err.message, "found no") &&
                    !strstr(err.message, "found nothing"),
                "%s: reported as missing: %s", c->name, err.message);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("mnist_files");
  TCase *tc = tcase_create("folders");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_loop_test(tc, folder_states, 0,
                      (int)(sizeof folder_cases / sizeof folder_cases[0]));
  tcase_add_loop_test(
      tc, unreadable_folder_says_why, 0,
      (int)(sizeof unreadable_cases / sizeof unreadable_cases[0]));
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 0);
}
