/* test_tune_cache.c: the step tuner's cache file (train/tune_cache.h)
 * against good, damaged, truncated, foreign, misplaced and concurrently
 * written files: a read either returns exactly what was written or
 * refuses with a reason, never crashes, never hangs on a FIFO. Plain C. */
#include <check.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/test_util.h"
#include "train/tune_cache.h"

static const char key[] = "net 784-100-10; batch 256; gpu Test GPU; sms 132";

/* A scratch folder of this test's (each test removes it at its end). */
static void scratch(char *out, size_t size) {
  snprintf(out, size, "/tmp/test_tune_cache.XXXXXX");
  ck_assert_ptr_nonnull(mkdtemp(out));
}

static tune_cache_entry entry_of(int salt) {
  tune_cache_entry e;
  memset(&e, 0, sizeof e);
  snprintf(e.key, sizeof e.key, "%s", key);
  e.count = 5;
  for (int i = 0; i < e.count; i++) {
    e.slot[i].call = i / 2;
    e.slot[i].field = i == 4 ? TUNE_FIELD_WAY : i % 2;
    e.slot[i].value = (i * 7 + salt) % 5;
    e.slot[i].has_algo = i != 4;
    for (int b = 0; e.slot[i].has_algo && b < TUNE_CACHE_ALGO_BYTES; b++)
      e.slot[i].algo[b] = (unsigned char)(b * 31 + i + salt);
    for (int f = 0; e.slot[i].has_algo && f < TUNE_CACHE_ID_FIELDS; f++)
      e.slot[i].id[f] = f == 3 ? -1 : (long long)f * 1000003 + i + salt;
  }
  e.fingerprint = 0x1234abcdu + (unsigned)salt;
  return e;
}

static int same_entry(const tune_cache_entry *a, const tune_cache_entry *b) {
  if (strcmp(a->key, b->key) || a->count != b->count ||
      a->fingerprint != b->fingerprint)
    return 0;
  for (int i = 0; i < a->count; i++)
    if (memcmp(&a->slot[i], &b->slot[i], sizeof a->slot[i])) return 0;
  return 1;
}

static void write_bytes(const char *path, const char *data, size_t size) {
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(fwrite(data, 1, size, f), size);
  fclose(f);
}

/* The file's bytes (at most cap). */
static size_t read_bytes(const char *path, char *out, size_t cap) {
  FILE *f = fopen(path, "rb");
  ck_assert_ptr_nonnull(f);
  size_t n = fread(out, 1, cap, f);
  fclose(f);
  return n;
}

START_TEST(round_trip_and_absent) {
  char dir[256], path[512], why[256];
  scratch(dir, sizeof dir);
  ck_assert_int_eq(tune_cache_path(path, sizeof path, dir, key), 0);
  ck_assert_ptr_nonnull(strstr(path, "/tune-"));
  tune_cache_entry in = entry_of(1), out;
  unlink(path);
  ck_assert_int_eq(tune_cache_read(&out, path, key, why, sizeof why), 1);
  ck_assert_int_eq(tune_cache_write(path, &in, why, sizeof why), 0);
  ck_assert_int_eq(tune_cache_read(&out, path, key, why, sizeof why), 0);
  ck_assert(same_entry(&in, &out));
  /* Another key: another file name, and this file is not its. */
  char other[512];
  ck_assert_int_eq(tune_cache_path(other, sizeof other, dir, "net 784-10"), 0);
  ck_assert_str_ne(other, path);
  ck_assert_int_eq(tune_cache_read(&out, path, "net 784-10", why, sizeof why),
                   -1);
  ck_assert_ptr_nonnull(strstr(why, "another run's key"));
  unlink(path);
  rmdir(dir);
}
END_TEST

/* Every truncation and every one-byte change of a good file is refused
 * with a reason, or (never) read as something else. */
START_TEST(damaged_files_are_refused) {
  char dir[256], path[512], why[256], good[8192], bad[8192];
  scratch(dir, sizeof dir);
  ck_assert_int_eq(tune_cache_path(path, sizeof path, dir, key), 0);
  tune_cache_entry in = entry_of(2), out;
  ck_assert_int_eq(tune_cache_write(path, &in, why, sizeof why), 0);
  size_t size = read_bytes(path, good, sizeof good);
  for (size_t cut = 0; cut < size; cut++) {
    write_bytes(path, good, cut);
    why[0] = '\0';
    ck_assert_msg(tune_cache_read(&out, path, key, why, sizeof why) == -1,
                  "cut at %zu read", cut);
    ck_assert_msg(why[0] != '\0', "cut at %zu: no reason", cut);
  }
  for (size_t at = 0; at < size; at++) {
    memcpy(bad, good, size);
    bad[at] ^= 0x01;
    write_bytes(path, bad, size);
    int status = tune_cache_read(&out, path, key, why, sizeof why);
    ck_assert_msg(status == -1, "byte %zu changed: read (%d)", at, status);
  }
  /* Text after the end line, and a NUL inside. */
  memcpy(bad, good, size);
  memcpy(bad + size, "slot 0 0 0 -\n", 13);
  write_bytes(path, bad, size + 13);
  ck_assert_int_eq(tune_cache_read(&out, path, key, why, sizeof why), -1);
  memcpy(bad, good, size);
  bad[10] = '\0';
  write_bytes(path, bad, size);
  ck_assert_int_eq(tune_cache_read(&out, path, key, why, sizeof why), -1);
  ck_assert_ptr_nonnull(strstr(why, "NUL"));
  unlink(path);
  rmdir(dir);
}
END_TEST

/* A folder, a FIFO and an oversized file where the cache should be: each
 * refused with a reason, the FIFO without waiting for a writer. */
START_TEST(not_a_regular_file) {
  char dir[256], path[512], why[256];
  tune_cache_entry out;
  scratch(dir, sizeof dir);
  snprintf(path, sizeof path, "%s/folder", dir);
  mkdir(path, 0700);
  ck_assert_int_eq(tune_cache_read(&out, path, key, why, sizeof why), -1);
  ck_assert_ptr_nonnull(strstr(why, "regular file"));
  rmdir(path);
  snprintf(path, sizeof path, "%s/fifo", dir);
  ck_assert_int_eq(mkfifo(path, 0600), 0);
  alarm(10); /* a hang fails the test instead of the suite */
  ck_assert_int_eq(tune_cache_read(&out, path, key, why, sizeof why), -1);
  alarm(0);
  ck_assert_ptr_nonnull(strstr(why, "regular file"));
  unlink(path);
  snprintf(path, sizeof path, "%s/big", dir);
  char *big = calloc(TUNE_CACHE_MAX_BYTES + 2, 1);
  memset(big, 'x', TUNE_CACHE_MAX_BYTES + 1);
  write_bytes(path, big, TUNE_CACHE_MAX_BYTES + 1);
  free(big);
  ck_assert_int_eq(tune_cache_read(&out, path, key, why, sizeof why), -1);
  ck_assert_ptr_nonnull(strstr(why, "at most"));
  unlink(path);
  rmdir(dir);
}
END_TEST

/* A folder that cannot be made (a regular file in the way): the write
 * says why and leaves nothing. */
START_TEST(unwritable_folder) {
  char dir[256], file[512], path[600], why[256] = "";
  scratch(dir, sizeof dir);
  snprintf(file, sizeof file, "%s/plain", dir);
  write_bytes(file, "x", 1);
  snprintf(path, sizeof path, "%s/sub/tune-0.txt", file);
  tune_cache_entry in = entry_of(3);
  ck_assert_int_eq(tune_cache_write(path, &in, why, sizeof why), -1);
  ck_assert_ptr_nonnull(strstr(why, "cannot create"));
  unlink(file);
  rmdir(dir);
}
END_TEST

/* Two writers of different entries and a reader at once: every read is
 * one writer's entry whole (or no file yet), never a mix or a refusal. */
START_TEST(concurrent_writers) {
  char dir[256], path[512], why[256];
  scratch(dir, sizeof dir);
  ck_assert_int_eq(tune_cache_path(path, sizeof path, dir, key), 0);
  unlink(path);
  pid_t writer[2];
  for (int w = 0; w < 2; w++) {
    writer[w] = fork();
    ck_assert_int_ge(writer[w], 0);
    if (writer[w] == 0) {
      tune_cache_entry e = entry_of(10 + w);
      char reason[256];
      for (int i = 0; i < 300; i++)
        if (tune_cache_write(path, &e, reason, sizeof reason) != 0) _exit(1);
      _exit(0);
    }
  }
  tune_cache_entry a = entry_of(10), b = entry_of(11), out;
  int reads = 0, running = 2, code[2] = {0, 0};
  /* Read until both writers are done, then once more. */
  while (running > 0 || reads == 0) {
    int status = tune_cache_read(&out, path, key, why, sizeof why);
    ck_assert_msg(status != -1, "read %d refused: %s", reads, why);
    if (status == 0) {
      ck_assert(same_entry(&out, &a) || same_entry(&out, &b));
      reads++;
    }
    for (int w = 0; w < 2; w++)
      if (writer[w] > 0 && waitpid(writer[w], &code[w], WNOHANG) == writer[w]) {
        writer[w] = 0;
        running--;
      }
  }
  for (int w = 0; w < 2; w++)
    ck_assert(WIFEXITED(code[w]) && WEXITSTATUS(code[w]) == 0);
  ck_assert_int_gt(reads, 0);
  unlink(path);
  rmdir(dir);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("tune_cache");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, round_trip_and_absent);
  tcase_add_test(tc, damaged_files_are_refused);
  tcase_add_test(tc, not_a_regular_file);
  tcase_add_test(tc, unwritable_folder);
  tcase_add_test(tc, concurrent_writers);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 0);
}
