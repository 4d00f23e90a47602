/* test_idx.c: the idx reader on malformed input (table-driven: every case
 * asserts the status and the key words of the message, which must also name
 * the file: bad headers, wrong sizes, damaged or cut gzip, bytes after the
 * gzip stream), and concatenated gzip members read on. What the reader
 * allocates: test_idx_memory.c. MNIST's checks on top: test_mnist.c. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <zlib.h>

#include "data/idx.h"
#include "tests/test_util.h"

static char dir[4096];

static void setup(void) {
  ck_assert_int_eq(test_make_temp_dir(dir, sizeof dir), 0);
}
static void teardown(void) {
  test_remove_dir(dir);
}

/* A valid labels file body: 5 labels. */
static const uint8_t labels5[5] = {0, 1, 2, 3, 9};

typedef struct bad_case {
  const char *name;
  /* Writes the file at `path`; returns 0. */
  int (*make)(const char *path);
  enum idx_status status;
  const char *words[3]; /* each must appear in the message */
} bad_case;

static int make_nothing(const char *path) {
  (void)path;
  return 0;
}
static int make_empty(const char *path) {
  return test_write_bytes(path, "", 0, 0);
}
static int make_directory(const char *path) {
  return mkdir(path, 0700);
}
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
  const uint8_t bytes[] = {0x1f, 0x8b, 8,    0,    0,    0,    0,    0,   0,
                           3,    0xde, 0xad, 0xbe, 0xef, 0x01, 0x02, 0x03};
  return test_write_bytes(path, bytes, sizeof bytes, 0);
}
/* A real gzip stream cut in half. */
static int make_cut_gz(const char *path) {
  uint8_t payload[4000];
  for (size_t i = 0; i < sizeof payload; i++)
    payload[i] = (uint8_t)(i * 31 % 251);
  uint32_t dims[1] = {sizeof payload};
  if (test_write_idx(path, 0x08, 1, dims, payload, sizeof payload, 1) != 0)
    return -1;
  struct stat info;
  if (stat(path, &info) != 0) return -1;
  return truncate(path, info.st_size / 2);
}
/* Appends `size` raw bytes to the file at `path`. */
static int append_bytes(const char *path, const void *bytes, size_t size) {
  FILE *f = fopen(path, "ab");
  if (!f) return -1;
  int ok = fwrite(bytes, 1, size, f) == size;
  return fclose(f) == 0 && ok ? 0 : -1;
}
/* A valid gzip idx file followed by bytes that are not a gzip member:
 * gzread would ignore them. */
static int make_gz_then_garbage(const char *path) {
  uint32_t dims[1] = {5};
  if (test_write_idx(path, 0x08, 1, dims, labels5, 5, 1) != 0) return -1;
  return append_bytes(path, "not gzip!", 9);
}
static int make_gz_then_zeros(const char *path) {
  uint32_t dims[1] = {5};
  if (test_write_idx(path, 0x08, 1, dims, labels5, 5, 1) != 0) return -1;
  return append_bytes(path, "\0\0\0\0\0\0\0\0", 8);
}
static int make_gz_then_lone_1f(const char *path) {
  uint32_t dims[1] = {5};
  if (test_write_idx(path, 0x08, 1, dims, labels5, 5, 1) != 0) return -1;
  return append_bytes(path, "\x1f", 1);
}
/* A valid gzip stream whose CRC-32 (the trailer's first byte) is wrong. */
static int make_bad_crc_gz(const char *path) {
  uint32_t dims[1] = {5};
  if (test_write_idx(path, 0x08, 1, dims, labels5, 5, 1) != 0) return -1;
  FILE *f = fopen(path, "r+b");
  if (!f) return -1;
  int ok = fseek(f, -8, SEEK_END) == 0;
  int byte = ok ? fgetc(f) : EOF;
  ok = byte != EOF && fseek(f, -8, SEEK_END) == 0 &&
       fputc(byte ^ 0xff, f) != EOF;
  return fclose(f) == 0 && ok ? 0 : -1;
}
/* Two gzip members, the second cut short. */
static int make_cut_second_member(const char *path) {
  uint32_t dims[1] = {4000};
  uint8_t payload[4000];
  for (size_t i = 0; i < sizeof payload; i++)
    payload[i] = (uint8_t)(i * 31 % 251);
  if (test_write_idx(path, 0x08, 1, dims, payload, 10, 1) != 0) return -1;
  struct stat before, after;
  if (stat(path, &before) != 0) return -1;
  gzFile f = gzopen(path, "ab");
  if (!f) return -1;
  int ok = gzwrite(f, payload + 10, sizeof payload - 10) ==
           (int)(sizeof payload - 10);
  if (gzclose(f) != Z_OK || !ok || stat(path, &after) != 0) return -1;
  return truncate(path, before.st_size + (after.st_size - before.st_size) / 2);
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
    {"missing",
     make_nothing,
     IDX_ERR_OPEN,
     {"found none", "download_mnist.sh"}},
    {"empty", make_empty, IDX_ERR_EMPTY, {"empty", "0 bytes"}},
    {"directory", make_directory, IDX_ERR_OPEN, {"directory"}},
    {"html page", make_html, IDX_ERR_HEADER, {"magic", "web page"}},
    {"bad type code", make_bad_type, IDX_ERR_TYPE, {"type code", "0x07"}},
    {"rank 0", make_rank0, IDX_ERR_RANK, {"dimensions", "found 0"}},
    {"rank 9", make_rank9, IDX_ERR_RANK, {"dimensions", "found 9"}},
    {"short magic", make_short_magic, IDX_ERR_HEADER, {"magic", "3 byte"}},
    {"short dims",
     make_short_dims,
     IDX_ERR_HEADER,
     {"dimension sizes", "truncated"}},
    {"truncated raw",
     make_truncated_raw,
     IDX_ERR_TRUNCATED,
     {"truncated", "13-byte"}},
    {"truncated gz",
     make_truncated_gz,
     IDX_ERR_TRUNCATED,
     {"expected 6 bytes", "found 5"}},
    {"trailing raw", make_trailing_raw, IDX_ERR_TRAILING, {"trailing"}},
    {"trailing gz",
     make_trailing_gz,
     IDX_ERR_TRAILING,
     {"trailing", "4 bytes"}},
    {"corrupt gzip", make_corrupt_gz, IDX_ERR_GZIP, {"gzip", "corrupt"}},
    {"cut gzip",
     make_cut_gz,
     IDX_ERR_GZIP,
     {"gzip", "truncated", "download_mnist.sh"}},
    {"gzip, then garbage",
     make_gz_then_garbage,
     IDX_ERR_TRAILING,
     {"after the end of the gzip stream", "9 byte(s)"}},
    {"gzip, then zeros",
     make_gz_then_zeros,
     IDX_ERR_TRAILING,
     {"after the end of the gzip stream", "8 byte(s)"}},
    {"gzip, then a lone 1f",
     make_gz_then_lone_1f,
     IDX_ERR_TRAILING,
     {"after the end of the gzip stream", "1 byte(s)"}},
    {"gzip magic, damaged stream",
     make_corrupt_gz,
     IDX_ERR_GZIP,
     {"starts with the gzip magic 1f 8b but is not a valid gzip stream",
      "zlib: ", "a raw idx file starts with 00 00, so this file is damaged"}},
    {"gzip with a wrong CRC",
     make_bad_crc_gz,
     IDX_ERR_GZIP,
     {"not a valid gzip stream", "incorrect data check", "damaged"}},
    {"second gzip member cut",
     make_cut_second_member,
     IDX_ERR_GZIP,
     {"truncated", "download_mnist.sh"}},
    {"overflowing dims", make_overflow, IDX_ERR_SIZE, {"claim more"}},
    {"absurd claim", make_absurd, IDX_ERR_SIZE, {"claim more"}},
    {"big claim, tiny gzip",
     make_big_claim_gz,
     IDX_ERR_TRUNCATED,
     {"truncated", "found 4"}},
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

START_TEST(concatenated_gzip_members_read_on) {
  /* Legal gzip, as gunzip reads it: the idx bytes split over 3 members. */
  uint8_t payload[3000];
  for (size_t i = 0; i < sizeof payload; i++)
    payload[i] = (uint8_t)(i * 13 % 253);
  uint32_t dims[2] = {30, 100};
  char path[4200];
  snprintf(path, sizeof path, "%s/members.gz", dir);
  ck_assert_int_eq(test_write_idx(path, 0x08, 2, dims, payload, 1000, 1), 0);
  for (int m = 1; m < 3; m++) {
    gzFile f = gzopen(path, "ab");
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(gzwrite(f, payload + 1000 * m, 1000), 1000);
    ck_assert_int_eq(gzclose(f), Z_OK);
  }
  idx_array array;
  idx_error err;
  ck_assert_msg(idx_read(&array, path, &err) == IDX_OK, "%s", err.message);
  ck_assert_int_eq(array.count, 3000);
  ck_assert_mem_eq(array.data, payload, sizeof payload);
  idx_array_destroy(&array);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("idx");
  TCase *tc = tcase_create("bad input");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_loop_test(tc, bad_input_is_named, 0,
                      (int)(sizeof bad_cases / sizeof bad_cases[0]));
  suite_add_tcase(suite, tc);
  TCase *good = tcase_create("good input");
  tcase_add_checked_fixture(good, setup, teardown);
  tcase_add_test(good, concatenated_gzip_members_read_on);
  suite_add_tcase(suite, good);
  return test_run_suite(suite, 0);
}
