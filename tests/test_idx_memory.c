/* test_idx_memory.c: what the idx reader allocates for files that lie about
 * their size. Each case runs in a forked child under an address-space cap
 * (RLIMIT_AS) that a reader trusting the header, or growing its buffer too
 * far ahead of the bytes delivered, would exceed. (ASan reserves terabytes
 * of address space, so the cap is not set under ASan; the cases still check
 * the outcome there.) */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <zlib.h>

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

/* Writes a gzip idx file: this header, then `zero_mib` MiB of zeros (whatever
 * the header claims). Fast: zeros compress ~1000:1. */
static int write_claim_gz(const char *path, int type, int rank,
                          const uint32_t *dims, size_t zero_mib) {
  static const uint8_t zeros[1 << 20];
  gzFile f = gzopen(path, "wb1");
  if (!f) return -1;
  uint8_t header[4 + 4 * 3] = {0, 0, (uint8_t)type, (uint8_t)rank};
  for (int d = 0; d < rank; d++)
    for (int b = 0; b < 4; b++)
      header[4 + 4 * d + b] = (uint8_t)(dims[d] >> (24 - 8 * b));
  int ok = gzwrite(f, header, 4 + 4 * (unsigned)rank) == 4 + 4 * rank;
  for (size_t i = 0; ok && i < zero_mib; i++)
    ok = gzwrite(f, zeros, sizeof zeros) == (int)sizeof zeros;
  return gzclose(f) == Z_OK && ok ? 0 : -1;
}

static void cap_address_space(size_t mib) {
#if defined(__SANITIZE_ADDRESS__)
  (void)mib;
  printf("note: no RLIMIT_AS cap under ASan (the outcome is still checked)\n");
#else
  struct rlimit cap = {(rlim_t)mib << 20, (rlim_t)mib << 20};
  ck_assert_int_eq(setrlimit(RLIMIT_AS, &cap), 0);
#endif
}

/* A gzip file whose header claims 600 MiB and that delivers 300 MiB: the
 * buffer may reach 1.25 x 300 + 1 = 376 MiB, not the 512 MiB that doubling
 * reaches (and not the 600 MiB of the claim), so it fails as truncated
 * under a 448 MiB cap instead of running out of memory. */
START_TEST(gzip_growth_is_bounded_by_what_arrives) {
  char path[4200];
  snprintf(path, sizeof path, "%s/claims-600-mib.gz", dir);
  uint32_t dims[3] = {600, 1024, 1024};
  ck_assert_int_eq(write_claim_gz(path, 0x08, 3, dims, 300), 0);
  cap_address_space(448);
  idx_array array;
  idx_error err;
  enum idx_status status = idx_read(&array, path, &err);
  ck_assert_msg(status == IDX_ERR_TRUNCATED, "expected truncated, got %d: %s",
                status, err.message);
  ck_assert_ptr_null(array.data);
  ck_assert_msg(strstr(err.message, "expected 629145600 bytes") &&
                    strstr(err.message, "found 314572800"),
                "%s", err.message);
}
END_TEST

/* MNIST files whose headers claim a wrong shape of 1 GiB and deliver 200 MiB:
 * the shape is refused from the header, before any payload is read, so it
 * fails under a 128 MiB cap with the shape message, not out of memory. */
typedef struct shape_case {
  const char *name;
  int bad_images; /* 1: the images file lies, 0: the labels file */
  const char *word;
} shape_case;

static const shape_case shape_cases[] = {
    {"images of 1x1 pixels", 1, "expected 28x28 images, found 1x1"},
    {"labels with 3 dimensions", 0, "swapped"},
};

START_TEST(mnist_shape_is_checked_before_the_payload) {
  const shape_case *c = &shape_cases[_i];
  char images[4200], labels[4200], *bad = c->bad_images ? images : labels;
  snprintf(images, sizeof images, "%s/images.gz", dir);
  snprintf(labels, sizeof labels, "%s/labels.gz", dir);
  uint8_t pixels[2 * 784] = {0}, classes[2] = {3, 4};
  uint32_t image_dims[3] = {2, 28, 28}, label_dims[1] = {2};
  ck_assert_int_eq(
      test_write_idx(images, 0x08, 3, image_dims, pixels, sizeof pixels, 1), 0);
  ck_assert_int_eq(
      test_write_idx(labels, 0x08, 1, label_dims, classes, sizeof classes, 1),
      0);
  uint32_t huge[3] = {1u << 30, 1, 1};
  ck_assert_int_eq(write_claim_gz(bad, 0x08, 3, huge, 200), 0);
  cap_address_space(128);
  mnist_split split;
  idx_error err;
  enum idx_status status = mnist_split_load(&split, images, labels, &err);
  ck_assert_msg(status == IDX_ERR_CONTENT, "%s: expected status %d, got %d: %s",
                c->name, IDX_ERR_CONTENT, status, err.message);
  ck_assert_ptr_null(split.images);
  ck_assert_msg(strstr(err.message, c->word) && strstr(err.message, bad),
                "%s: lacks '%s' or the file's name: %s", c->name, c->word,
                err.message);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("idx_memory");
  TCase *tc = tcase_create("lying sizes");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, gzip_growth_is_bounded_by_what_arrives);
  tcase_add_loop_test(tc, mnist_shape_is_checked_before_the_payload, 0,
                      (int)(sizeof shape_cases / sizeof shape_cases[0]));
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 0);
}
