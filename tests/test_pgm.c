/* test_pgm.c: the PGM reader of mnist_predict --image: binary and plain
 * images with comments and scaled maxval, and a table of bad files, each
 * refused with its status and a message naming the file and what was
 * wrong; a folder, a FIFO and a device refused without waiting. */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data/pgm.h"
#include "tests/test_util.h"

static char dir[4096];

/* Writes header + `pixels` bytes of value `v` (binary) to dir/name. */
static void write_file(const char *name, const char *header, int pixels, int v,
                       char *path, size_t size) {
  snprintf(path, size, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  fputs(header, f);
  for (int p = 0; p < pixels; p++)
    fputc(v, f);
  fclose(f);
}

START_TEST(reads_binary_and_plain) {
  char path[4200];
  idx_error err;
  uint8_t px[784];
  write_file("a.pgm", "P5\n# a comment\n28 28\n255\n", 784, 200, path,
             sizeof path);
  ck_assert_msg(pgm_read(px, path, &err) == IDX_OK, "%s", err.message);
  ck_assert_int_eq(px[0], 200);
  ck_assert_int_eq(px[783], 200);
  write_file("b.pgm", "P5 28 28 15\n", 784, 15, path, sizeof path);
  ck_assert_int_eq(pgm_read(px, path, &err), IDX_OK);
  ck_assert_int_eq(px[10], 255); /* scaled from maxval 15 */
  snprintf(path, sizeof path, "%s/c.pgm", dir);
  FILE *f = fopen(path, "w");
  fprintf(f, "P2\n28 28\n255\n");
  for (int p = 0; p < 784; p++)
    fprintf(f, "%d%c", p % 256, p % 28 == 27 ? '\n' : ' ');
  fclose(f);
  ck_assert_msg(pgm_read(px, path, &err) == IDX_OK, "%s", err.message);
  ck_assert_int_eq(px[300], 300 % 256);
}
END_TEST

typedef struct bad_pgm {
  const char *header;
  int pixels, value;
  enum idx_status status;
  const char *words;
} bad_pgm;

static const bad_pgm bad[] = {
    {"P6\n28 28\n255\n", 784, 1, IDX_ERR_HEADER, "found a file starting 'P6"},
    {"GIF89a", 0, 0, IDX_ERR_HEADER, "found a file starting 'GIF8'"},
    {"P5\n27 28\n255\n", 756, 1, IDX_ERR_HEADER,
     "expected a 28x28 image, found 27x28"},
    {"P5 999999999 999999999\n255\n", 0, 0, IDX_ERR_HEADER,
     "expected a 28x28 image, found 999999999x999999999"},
    {"P5\n-28 28\n255\n", 784, 1, IDX_ERR_HEADER,
     "found '-28' where the width should be"},
    {"P5\n28 x\n255\n", 784, 1, IDX_ERR_HEADER,
     "found 'x' where the height should be"},
    {"P5\n28", 0, 0, IDX_ERR_HEADER,
     "found the end of the data where the height should be"},
    {"P5\n28 28\n65535\n", 1568, 1, IDX_ERR_HEADER, "found maxval '65535'"},
    {"P5\n28 28\n0\n", 784, 0, IDX_ERR_HEADER, "found maxval '0'"},
    {"P5\n28 28\nabc\n", 784, 0, IDX_ERR_HEADER, "found maxval 'abc'"},
    {"P5\n28 28\n255\n", 700, 1, IDX_ERR_CONTENT,
     "found the end of the data at pixel 700"},
    {"P5\n28 28\n255\n", 800, 1, IDX_ERR_CONTENT,
     "found more data after them (bytes: 16)"},
    {"P5\n28 28\n100\n", 784, 200, IDX_ERR_CONTENT,
     "found 200, a larger value, at pixel 0"},
    {"P5\r\n28 28\r\n255\r\n", 784, 1, IDX_ERR_HEADER, "found CR LF"},
    {"P2\n28 28\n255\n1 2 x", 0, 0, IDX_ERR_CONTENT, "found 'x' at pixel 2"},
    {"P2\n28 28\n255\n-1", 0, 0, IDX_ERR_CONTENT, "found '-1' at pixel 0"},
    {"P2\n28 28\n255\n1 2", 0, 0, IDX_ERR_CONTENT,
     "found the end of the data at pixel 2"},
    {"", 0, 0, IDX_ERR_EMPTY, "found an empty file"},
    /* Larger than any one image: refused from its size, before reading. */
    {"P5\n28 28\n255\n", PGM_MAX_BYTES, 1, IDX_ERR_SIZE,
     "bytes, found 1048589 bytes"},
};

START_TEST(bad_files_are_named) {
  char name[32], path[4200];
  idx_error err;
  uint8_t px[784];
  snprintf(name, sizeof name, "bad%d.pgm", _i);
  write_file(name, bad[_i].header, bad[_i].pixels, bad[_i].value, path,
             sizeof path);
  ck_assert_int_eq(pgm_read(px, path, &err), bad[_i].status);
  ck_assert_msg(strstr(err.message, path) && strstr(err.message, bad[_i].words),
                "case %d: '%s' lacks '%s'", _i, err.message, bad[_i].words);
  snprintf(path, sizeof path, "%s/missing.pgm", dir);
  ck_assert_int_eq(pgm_read(px, path, &err), IDX_ERR_OPEN);
  ck_assert_ptr_nonnull(strstr(err.message, "cannot open"));
}
END_TEST

/* What is not a regular file is refused from what was opened, without
 * waiting for a byte: a folder, a FIFO no one writes to (a plain open
 * would block until a writer came), a device. Each run is bounded by the
 * suite's timeout. */
START_TEST(only_regular_files_are_read) {
  char fifo[4200];
  uint8_t px[784];
  idx_error err;
  snprintf(fifo, sizeof fifo, "%s/fifo.pgm", dir);
  ck_assert_int_eq(mkfifo(fifo, 0600), 0);
  const char *const paths[][2] = {
      {dir, "found a folder"},
      {fifo, "found a FIFO"},
      {"/dev/zero", "found a device"},
  };
  for (int i = 0; i < 3; i++) {
    ck_assert_int_eq(pgm_read(px, paths[i][0], &err), IDX_ERR_OPEN);
    ck_assert_msg(strstr(err.message, paths[i][0]) &&
                      strstr(err.message, "(a regular file)") &&
                      strstr(err.message, paths[i][1]),
                  "%s", err.message);
  }
  ck_assert_int_eq(unlink(fifo), 0);
}
END_TEST

int main(void) {
  if (test_make_temp_dir(dir, sizeof dir) != 0) return 1;
  Suite *suite = suite_create("pgm");
  TCase *tc = tcase_create("pgm");
  tcase_add_test(tc, reads_binary_and_plain);
  tcase_set_timeout(tc, 10);
  tcase_add_test(tc, only_regular_files_are_read);
  tcase_add_loop_test(tc, bad_files_are_named, 0,
                      (int)(sizeof bad / sizeof bad[0]));
  suite_add_tcase(suite, tc);
  int status = test_run_suite(suite, 0);
  test_remove_dir(dir);
  return status;
}
