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
#include "test_util.h"

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

int main(void) {
  Suite *suite = suite_create("idx_memory");
  TCase *tc = tcase_create("lying sizes");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, gzip_growth_is_bounded_by_what_arrives);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 0);
}
