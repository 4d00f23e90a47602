/* test_pgm.c: the PGM reader of mnist_predict --image: binary and plain
 * images with comments and scaled maxval, and a table of bad files, each
 * refused with a message naming the file and what was wrong. */
#include <check.h>
#include <stdio.h>
#include <string.h>

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
  char path[4200], err[512];
  uint8_t px[784];
  write_file("a.pgm", "P5\n# a comment\n28 28\n255\n", 784, 200, path,
             sizeof path);
  ck_assert_msg(pgm_read(px, path, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(px[0], 200);
  ck_assert_int_eq(px[783], 200);
  write_file("b.pgm", "P5 28 28 15\n", 784, 15, path, sizeof path);
  ck_assert_int_eq(pgm_read(px, path, err, sizeof err), 0);
  ck_assert_int_eq(px[10], 255); /* scaled from maxval 15 */
  snprintf(path, sizeof path, "%s/c.pgm", dir);
  FILE *f = fopen(path, "w");
  fprintf(f, "P2\n28 28\n255\n");
  for (int p = 0; p < 784; p++)
    fprintf(f, "%d%c", p % 256, p % 28 == 27 ? '\n' : ' ');
  fclose(f);
  ck_assert_msg(pgm_read(px, path, err, sizeof err) == 0, "%s", err);
  ck_assert_int_eq(px[300], 300 % 256);
}
END_TEST

typedef struct bad_pgm {
  const char *header;
  int pixels, value;
  const char *words;
} bad_pgm;

static const bad_pgm bad[] = {
    {"P6\n28 28\n255\n", 784, 1, "found a file starting 'P6"},
    {"GIF89a", 0, 0, "found a file starting 'GIF8'"},
    {"P5\n27 28\n255\n", 756, 1, "expected a 28x28 image, found 27x28"},
    {"P5 999999999 999999999\n255\n", 0, 0,
     "expected a 28x28 image, found 999999999x999999999"},
    {"P5\n-28 28\n255\n", 784, 1, "found '-28' where the width should be"},
    {"P5\n28 x\n255\n", 784, 1, "found 'x' where the height should be"},
    {"P5\n28", 0, 0, "found the end of the data where the height should be"},
    {"P5\n28 28\n65535\n", 1568, 1, "found maxval '65535'"},
    {"P5\n28 28\n0\n", 784, 0, "found maxval '0'"},
    {"P5\n28 28\nabc\n", 784, 0, "found maxval 'abc'"},
    {"P5\n28 28\n255\n", 700, 1, "found the end of the data at pixel 700"},
    {"P5\n28 28\n255\n", 800, 1, "found more data after them (bytes: 16)"},
    {"P5\n28 28\n100\n", 784, 200, "found 200, a larger value, at pixel 0"},
    {"P5\r\n28 28\r\n255\r\n", 784, 1, "found CR LF"},
    {"P2\n28 28\n255\n1 2 x", 0, 0, "found 'x' at pixel 2"},
    {"P2\n28 28\n255\n-1", 0, 0, "found '-1' at pixel 0"},
    {"P2\n28 28\n255\n1 2", 0, 0, "found the end of the data at pixel 2"},
    {"", 0, 0, "found an empty file"},
};

START_TEST(bad_files_are_named) {
  char name[32], path[4200], err[512];
  uint8_t px[784];
  snprintf(name, sizeof name, "bad%d.pgm", _i);
  write_file(name, bad[_i].header, bad[_i].pixels, bad[_i].value, path,
             sizeof path);
  ck_assert_int_eq(pgm_read(px, path, err, sizeof err), -1);
  ck_assert_msg(strstr(err, path) && strstr(err, bad[_i].words),
                "case %d: '%s' lacks '%s'", _i, err, bad[_i].words);
  snprintf(path, sizeof path, "%s/missing.pgm", dir);
  ck_assert_int_eq(pgm_read(px, path, err, sizeof err), -1);
  ck_assert_ptr_nonnull(strstr(err, "cannot open"));
}
END_TEST

/* A folder given as the image: said as such. */
START_TEST(a_folder_is_named) {
  char err[512];
  uint8_t px[784];
  ck_assert_int_eq(pgm_read(px, dir, err, sizeof err), -1);
  ck_assert_msg(strstr(err, dir) && strstr(err, "found a folder"), "%s", err);
}
END_TEST

int main(void) {
  if (test_make_temp_dir(dir, sizeof dir) != 0) return 1;
  Suite *suite = suite_create("pgm");
  TCase *tc = tcase_create("pgm");
  tcase_add_test(tc, reads_binary_and_plain);
  tcase_add_test(tc, a_folder_is_named);
  tcase_add_loop_test(tc, bad_files_are_named, 0,
                      (int)(sizeof bad / sizeof bad[0]));
  suite_add_tcase(suite, tc);
  int status = test_run_suite(suite, 0);
  test_remove_dir(dir);
  return status;
}
