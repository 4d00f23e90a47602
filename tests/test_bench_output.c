/* test_bench_output.c: mnist_bench's output file (bench_output.h), held to
 * the rules of --log and --save (checkpoint/write_target.h): bad --json
 * paths (FIFO, device, folder, missing folder, /proc, an immutable file)
 * refused with a message naming --json, what was expected and what was
 * found, table-driven, creating nothing; a write that cannot happen, or a
 * target that became a FIFO before the rename, leaves what was there and
 * no temporary; a good one replaces the file whole. Plain C, runs anywhere
 * (the immutable case needs root: it says where it cannot run). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench/bench_output.h"
#include "tests/test_util.h"

static char dir[4096];

static void setup(void) {
  ck_assert_int_eq(test_make_temp_dir(dir, sizeof dir), 0);
}
static void teardown(void) {
  test_remove_dir(dir);
}

/* A write that cannot happen returns -1, leaves what was there, and
 * leaves no temporary: a missing folder, a folder in the target's place. */
START_TEST(failed_write_leaves_nothing) {
  char path[4300];
  snprintf(path, sizeof path, "%s/missing/bench.json", dir);
  ck_assert_int_eq(bench_output_replace(path, "{}"), -1);
  ck_assert_int_eq(test_count_entries(dir), 0);
  snprintf(path, sizeof path, "%s/taken", dir);
  ck_assert_int_eq(mkdir(path, 0755), 0);
  ck_assert_int_eq(bench_output_replace(path, "{}"), -1);
  ck_assert_int_eq(test_count_entries(dir), 1);
  struct stat info;
  ck_assert_int_eq(stat(path, &info), 0);
  ck_assert(S_ISDIR(info.st_mode));
  /* A good one: the old content replaced by the text and a newline. */
  snprintf(path, sizeof path, "%s/ok.json", dir);
  ck_assert_int_eq(test_write_bytes(path, "old content", 11, 0), 0);
  ck_assert_int_eq(bench_output_replace(path, "{}"), 0);
  ck_assert_int_eq(test_count_entries(dir), 2);
  char text[16] = "";
  FILE *f = fopen(path, "rb");
  ck_assert_ptr_nonnull(f);
  ck_assert_uint_eq(fread(text, 1, sizeof text - 1, f), 3);
  fclose(f);
  ck_assert_str_eq(text, "{}\n");
}
END_TEST

typedef struct path_case {
  const char *path; /* relative to the temporary folder; "/..." absolute */
  int status;
  const char *words; /* in the message, after "--json PATH: " */
} path_case;

/* In the temporary folder: "file" a regular file, "fifo" a FIFO,
 * "sub" a folder. */
static const path_case path_cases[] = {
    {"new.json", 0, NULL},
    {"file", 0, NULL},
    {"sub/new.json", 0, NULL},
    {"", -1, "expected a file name, found ''"},
    {"sub", -1, "expected a file name, found a folder"},
    {"fifo", -1, "expected a regular file to replace, found a FIFO"},
    {"/dev/null", -1, "expected a regular file to replace, found a character"},
    {"missing/x.json", -1, "expected a writable folder"},
    {"/nonexistent/x.json", -1, "expected a writable folder '/nonexistent'"},
    {"file/x.json", -1, "expected a file name, found Not a directory"},
    {"/proc/x.json", -1, "no file can be created in '/proc'"},
};

START_TEST(output_paths_are_checked) {
  const path_case *c = &path_cases[_i];
  char path[4300], err[8800];
  snprintf(path, sizeof path, "%s/file", dir);
  ck_assert_int_eq(test_write_bytes(path, "x", 1, 0), 0);
  snprintf(path, sizeof path, "%s/fifo", dir);
  ck_assert_int_eq(mkfifo(path, 0600), 0);
  snprintf(path, sizeof path, "%s/sub", dir);
  ck_assert_int_eq(mkdir(path, 0755), 0);
  if (c->path[0] == '/' || c->path[0] == '\0')
    snprintf(path, sizeof path, "%s", c->path);
  else
    snprintf(path, sizeof path, "%s/%s", dir, c->path);
  if (strncmp(c->path, "/proc/", 6) == 0 && access("/proc/self", F_OK) != 0) {
    printf("note: %s: no /proc here: not run\n", c->path);
    return;
  }
  err[0] = '\0';
  int status = bench_output_check("--json", path, err, sizeof err);
  ck_assert_msg(status == c->status, "%s: %d (%s)", c->path, status, err);
  if (!c->words) return;
  ck_assert_msg(strncmp(err, "--json", 6) == 0 && strstr(err, c->words),
                "%s: %s", c->path, err);
  ck_assert_int_eq(test_count_entries(dir), 3);
}
END_TEST

/* Runs `command` with `path`; 0 when it succeeded. */
static int run_on(const char *command, const char *path) {
  char line[4400];
  snprintf(line, sizeof line, "%s '%s' 2>/dev/null", command, path);
  return system(line);
}

/* An immutable file sits in a writable folder, so only the rename would
 * fail, after the run: the shared rules probe the file itself and refuse
 * it up front (chattr +i needs root and a file system that has the flag:
 * the case says where it cannot run). */
START_TEST(immutable_file_is_refused_first) {
  char path[4300], err[8800] = "";
  snprintf(path, sizeof path, "%s/frozen.json", dir);
  ck_assert_int_eq(test_write_bytes(path, "old", 3, 0), 0);
  if (run_on("chattr +i", path) != 0) {
    printf("note: chattr +i is refused here (root and ext4-like file "
           "systems only): not run\n");
    return;
  }
  int status = bench_output_check("--json", path, err, sizeof err);
  ck_assert_int_eq(run_on("chattr -i", path), 0);
  ck_assert_msg(status == -1 && strstr(err, "--json") && strstr(err, path) &&
                    strstr(err, "does not open for writing"),
                "%d: %s", status, err);
  ck_assert_int_eq(test_count_entries(dir), 1);
}
END_TEST

/* A target that became a FIFO after the check is refused at the rename:
 * the FIFO stays and no temporary is left. */
START_TEST(target_rechecked_at_rename) {
  char path[4300], err[8800] = "";
  snprintf(path, sizeof path, "%s/out.json", dir);
  ck_assert_msg(bench_output_check("--json", path, err, sizeof err) == 0, "%s",
                err);
  ck_assert_int_eq(mkfifo(path, 0600), 0);
  ck_assert_int_eq(bench_output_replace(path, "{}"), -1);
  struct stat info;
  ck_assert_int_eq(stat(path, &info), 0);
  ck_assert(S_ISFIFO(info.st_mode));
  ck_assert_int_eq(test_count_entries(dir), 1);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("bench_output");
  TCase *tc = tcase_create("bench_output");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, failed_write_leaves_nothing);
  tcase_add_test(tc, immutable_file_is_refused_first);
  tcase_add_test(tc, target_rechecked_at_rename);
  tcase_add_loop_test(tc, output_paths_are_checked, 0,
                      (int)(sizeof path_cases / sizeof path_cases[0]));
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 0);
}
