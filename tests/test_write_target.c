/* test_write_target.c: the rules for files the programs replace
 * (checkpoint/write_target.h) and the two writers that follow them: a
 * table of targets (regular, new, FIFO, device node, folder, missing
 * folder, /proc) checked up front, nothing left behind by the probes;
 * the check again at commit time refuses a target that became a FIFO
 * (run_log_commit, safetensors_write), leaving it and no temporary; the
 * same file under two names; the longest name the check passes commits;
 * the run log keeps its rows in memory and
 * creates no file before the commit; a symbolic link is written through
 * by all three writers (run_log_commit, safetensors_write,
 * bench_output_replace: the target replaced with its mode, the link kept,
 * no temporary left), and a link into a folder that takes no new file is
 * refused by the check. Plain C, runs anywhere (the device node case needs
 * mknod, as root; the frozen folder chattr +i or a user other than root:
 * each says so where it cannot run). */
#define _XOPEN_SOURCE 700 /* mknod */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "bench/bench_output.h"
#include "checkpoint/safetensors.h"
#include "checkpoint/write_target.h"
#include "tests/test_util.h"
#include "train/run_log.h"

static char dir[4096];

static void setup(void) {
  ck_assert_int_eq(test_make_temp_dir(dir, sizeof dir), 0);
}
static void teardown(void) {
  char frozen[4300];
  snprintf(frozen, sizeof frozen, "chattr -i '%s/frozen' 2>/dev/null", dir);
  if (system(frozen) != 0) {
    snprintf(frozen, sizeof frozen, "%s/frozen", dir);
    chmod(frozen, 0755);
  }
  test_remove_dir(dir);
}

/* `name` inside the temporary folder. */
static const char *in_dir(char *out, size_t size, const char *name) {
  snprintf(out, size, "%s/%s", dir, name);
  return out;
}

enum { MAKE_NOTHING, MAKE_FILE, MAKE_FIFO, MAKE_DEVICE, MAKE_FOLDER };

typedef struct target_case {
  const char *name;
  const char *path;  /* relative to the temporary folder, unless absolute */
  int make;          /* what is made at path first */
  const char *words; /* in the message; NULL: accepted */
} target_case;

static const target_case targets[] = {
    {"regular file", "old.csv", MAKE_FILE, NULL},
    {"new file", "new.csv", MAKE_NOTHING, NULL},
    {"fifo", "fifo", MAKE_FIFO,
     "expected a regular file to replace, found a "
     "FIFO"},
    {"device node", "null", MAKE_DEVICE, "found a character device"},
    {"folder", "folder", MAKE_FOLDER, "expected a file name, found a folder"},
    {"missing folder", "no/such/x.st", MAKE_NOTHING,
     "expected a writable folder"},
    {"/proc", "/proc/x.st", MAKE_NOTHING, "no file can be created in '/proc'"},
};

START_TEST(targets_are_checked) {
  const target_case *c = &targets[_i];
  char path[4300], err[8192] = "";
  if (c->path[0] == '/')
    snprintf(path, sizeof path, "%s", c->path);
  else
    in_dir(path, sizeof path, c->path);
  struct stat before = {0}, after = {0};
  if (c->make == MAKE_FILE)
    ck_assert_int_eq(test_write_bytes(path, "kept", 4, 0), 0);
  if (c->make == MAKE_FIFO) ck_assert_int_eq(mkfifo(path, 0644), 0);
  if (c->make == MAKE_FOLDER) ck_assert_int_eq(mkdir(path, 0755), 0);
  if (c->make == MAKE_DEVICE && mknod(path, S_IFCHR | 0666, makedev(1, 3))) {
    printf("note: %s: mknod is refused here (not root): not run\n", c->name);
    return;
  }
  if (c->path[0] == '/' && access("/proc/self", F_OK) != 0) {
    printf("note: %s: no /proc here: not run\n", c->name);
    return;
  }
  stat(path, &before);
  int made = test_count_entries(dir);
  int status = write_target_check("--save", path, err, sizeof err);
  if (!c->words) {
    ck_assert_msg(status == 0, "%s: %s", c->name, err);
  } else {
    ck_assert_msg(status == -1, "%s: accepted", c->name);
    ck_assert_msg(strstr(err, c->words) && strstr(err, "--save") &&
                      strstr(err, c->path),
                  "%s: lacks '%s': %s", c->name, c->words, err);
  }
  /* Untouched, and no probe left behind. */
  ck_assert_int_eq(test_count_entries(dir), made);
  if (c->make != MAKE_NOTHING) {
    ck_assert_int_eq(stat(path, &after), 0);
    ck_assert_int_eq(after.st_mode, before.st_mode);
    ck_assert_int_eq(after.st_ino, before.st_ino);
    ck_assert_int_eq(after.st_rdev, before.st_rdev);
  }
}
END_TEST

START_TEST(recheck_and_same) {
  char a[4300], b[4300], err[8192] = "";
  in_dir(a, sizeof a, "a.csv");
  ck_assert_int_eq(write_target_recheck("--log", a, err, sizeof err), 0);
  ck_assert_int_eq(test_write_bytes(a, "x", 1, 0), 0);
  ck_assert_int_eq(write_target_recheck("--log", a, err, sizeof err), 0);
  in_dir(b, sizeof b, "fifo");
  ck_assert_int_eq(mkfifo(b, 0644), 0);
  ck_assert_int_eq(write_target_recheck("--log", b, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "--log") && strstr(err, "found a FIFO"), "%s", err);
  /* The same file: one name twice, two spellings of a new one, a hard
   * link; not the same: two files, a file and a new name. */
  ck_assert_int_eq(write_target_same(a, a), 1);
  char dotted[4400], linked[4300], other[4300];
  snprintf(dotted, sizeof dotted, "%s/./new.st", dir);
  ck_assert_int_eq(
      write_target_same(dotted, in_dir(other, sizeof other, "new.st")), 1);
  ck_assert_int_eq(link(a, in_dir(linked, sizeof linked, "hard")), 0);
  ck_assert_int_eq(write_target_same(a, linked), 1);
  ck_assert_int_eq(write_target_same(a, b), 0);
  ck_assert_int_eq(write_target_same(a, other), 0);
  /* A link to a file not there yet names the file the commit would
   * write: the same as that file's own name. */
  char dangling[4300], absent[4300];
  in_dir(absent, sizeof absent, "absent.st");
  ck_assert_int_eq(
      symlink("absent.st", in_dir(dangling, sizeof dangling, "dangling.csv")),
      0);
  ck_assert_int_eq(write_target_same(dangling, absent), 1);
  ck_assert_int_eq(write_target_same(absent, dangling), 1);
  ck_assert_int_eq(write_target_same(dangling, other), 0);
}
END_TEST

/* The check's probe has the commit's name: the longest name the check
 * passes commits (no "File name too long" after a whole run), and one
 * character more is refused up front, naming the temporary. */
START_TEST(a_name_the_check_passes_commits) {
  long most = pathconf(dir, _PC_NAME_MAX);
  size_t suffix = strlen(WRITE_TARGET_TEMPORARY);
  ck_assert_int_gt(most, (long)suffix + 1);
  char name[1024], path[5200], err[8192] = "";
  ck_assert_int_lt(most, (long)sizeof name);
  for (size_t extra = 0; extra < 2; extra++) {
    size_t length = (size_t)most - suffix + extra;
    memset(name, 'n', length);
    name[length] = '\0';
    in_dir(path, sizeof path, name);
    int checked = write_target_check("--save", path, err, sizeof err);
    if (extra == 1) {
      ck_assert_msg(checked == -1 && strstr(err, "--save") &&
                        strstr(err, WRITE_TARGET_TEMPORARY) &&
                        strstr(err, "too long"),
                    "%zu characters: %s", length, err);
      continue;
    }
    ck_assert_msg(checked == 0, "%zu characters: %s", length, err);
    run_log *log = NULL;
    ck_assert_int_eq(run_log_open(&log, path, "epoch"), 0);
    ck_assert_int_eq(run_log_commit(log), 0);
    ck_assert_int_eq(access(path, F_OK), 0);
  }
  ck_assert_int_eq(test_count_entries(dir), 1); /* no temporary left */
}
END_TEST

/* The rows stay in memory: no file in the folder until the commit, which
 * writes them all and leaves no temporary. */
START_TEST(run_log_creates_nothing_before_commit) {
  char path[4300], text[256] = "";
  in_dir(path, sizeof path, "log.csv");
  run_log *log = NULL;
  ck_assert_int_eq(run_log_open(&log, path, "epoch,loss"), 0);
  ck_assert_int_eq(run_log_printf(log, "%d,%.2f", 1, 0.5), 0);
  ck_assert_int_eq(run_log_printf(log, "%d,%.2f", 2, 0.25), 0);
  ck_assert_int_eq(test_count_entries(dir), 0);
  ck_assert_int_eq(run_log_commit(log), 0);
  ck_assert_int_eq(test_count_entries(dir), 1);
  FILE *f = fopen(path, "r");
  ck_assert_ptr_nonnull(f);
  size_t got = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[got] = '\0';
  ck_assert_str_eq(text, "epoch,loss\n1,0.50\n2,0.25\n");
  /* Discarded: nothing written. */
  ck_assert_int_eq(run_log_open(&log, path, "other"), 0);
  run_log_discard(log);
  run_log_discard(NULL);
  ck_assert_int_eq(test_count_entries(dir), 1);
}
END_TEST

/* A target that became a FIFO during the run is refused at commit by both
 * writers: it stays a FIFO and no temporary is left. */
START_TEST(commit_refuses_a_target_that_changed) {
  char path[4300], err[8192] = "";
  in_dir(path, sizeof path, "target");
  run_log *log = NULL;
  ck_assert_int_eq(run_log_open(&log, path, "epoch"), 0);
  ck_assert_int_eq(mkfifo(path, 0644), 0);
  ck_assert_int_eq(run_log_commit(log), -1);
  struct stat info;
  ck_assert_int_eq(stat(path, &info), 0);
  ck_assert(S_ISFIFO(info.st_mode));
  ck_assert_int_eq(test_count_entries(dir), 1);
  const float w[2] = {1.0f, 2.0f};
  safetensors_entry tensor = {"w", 1, {2, 0}, w};
  ck_assert_int_eq(
      safetensors_write(path, &tensor, 1, NULL, 0, err, sizeof err), -1);
  ck_assert_msg(strstr(err, path) && strstr(err, "found a FIFO"), "%s", err);
  ck_assert_int_eq(stat(path, &info), 0);
  ck_assert(S_ISFIFO(info.st_mode));
  ck_assert_int_eq(test_count_entries(dir), 1);
}
END_TEST

/* One writer of the three, writing "new" (or a file that holds it) to
 * `path`; 0 on success. */
typedef int (*writer_fn)(const char *path);

static int write_log(const char *path) {
  run_log *log = NULL;
  return run_log_open(&log, path, "new") == 0 ? run_log_commit(log) : -1;
}
static int write_tensors(const char *path) {
  const float w[1] = {7.0f};
  safetensors_entry tensor = {"new", 1, {1, 0}, w};
  char err[8192];
  return safetensors_write(path, &tensor, 1, NULL, 0, err, sizeof err);
}
static int write_json(const char *path) {
  return bench_output_replace(path, "new");
}
static const writer_fn writers[] = {write_log, write_tensors, write_json};
static const char *const writer_names[] = {
    "run_log_commit", "safetensors_write", "bench_output_replace"};

/* 1 when the file at `path` holds "new" somewhere in its first bytes. */
static int holds_new(const char *path) {
  char text[256] = "";
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  size_t got = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  for (size_t i = 0; i + 3 <= got; i++)
    if (memcmp(text + i, "new", 3) == 0) return 1;
  return 0;
}

/* --log, --save and --json through a symbolic link (to a file, and to a
 * file not yet there) write the link's target, keep the target's mode and
 * keep the link; no temporary is left beside either. */
START_TEST(links_are_written_through) {
  const char *name = writer_names[_i];
  char real[4300], file[4400], fresh[4400], link_a[4300], link_b[4300];
  char got[4400];
  in_dir(real, sizeof real, "real");
  ck_assert_int_eq(mkdir(real, 0755), 0);
  snprintf(file, sizeof file, "%s/file", real);
  snprintf(fresh, sizeof fresh, "%s/fresh", real);
  ck_assert_int_eq(test_write_bytes(file, "old", 3, 0), 0);
  ck_assert_int_eq(chmod(file, 0640), 0);
  ck_assert_int_eq(symlink("real/file", in_dir(link_a, sizeof link_a, "a")), 0);
  ck_assert_int_eq(symlink("real/fresh", in_dir(link_b, sizeof link_b, "b")),
                   0);
  ck_assert_msg(writers[_i](link_a) == 0, "%s: through a link failed", name);
  ck_assert_msg(writers[_i](link_b) == 0, "%s: through a dangling link failed",
                name);
  const char *links[] = {link_a, link_b},
             *targets[] = {"real/file", "real/fresh"};
  for (int k = 0; k < 2; k++) {
    struct stat info;
    ck_assert_int_eq(lstat(links[k], &info), 0);
    ck_assert_msg(S_ISLNK(info.st_mode), "%s: %s is no longer a link", name,
                  links[k]);
    ssize_t length = readlink(links[k], got, sizeof got - 1);
    ck_assert_int_gt(length, 0);
    got[length] = '\0';
    ck_assert_str_eq(got, targets[k]);
  }
  ck_assert_msg(holds_new(file) && holds_new(fresh),
                "%s: a link's target was not written", name);
  struct stat info;
  ck_assert_int_eq(stat(file, &info), 0);
  ck_assert_int_eq(info.st_mode & 07777, 0640);
  ck_assert_int_eq(test_count_entries(dir), 3); /* real, a, b: no temporary */
  ck_assert_int_eq(test_count_entries(real), 2);
  /* The permission bits are kept, a set-user or set-group ID bit is not. */
  ck_assert_int_eq(chmod(file, 06750), 0);
  ck_assert_msg(writers[_i](file) == 0, "%s: over a set-ID file failed", name);
  ck_assert_int_eq(stat(file, &info), 0);
  ck_assert_int_eq(info.st_mode & 07777, 0750);
}
END_TEST

/* A link in a writable folder to a file in a folder that takes no new
 * file (chattr +i; chmod 0555 when not root) passes no check: the writers
 * make their temporary beside the target, so it could only fail after the
 * run. The same for a link to a new file in /proc. */
START_TEST(link_into_frozen_folder_is_refused) {
  const char *labels[] = {"--log", "--save", "--json"};
  char frozen[4300], file[4400], link_a[4300], link_p[4300], err[8192];
  in_dir(frozen, sizeof frozen, "frozen");
  ck_assert_int_eq(mkdir(frozen, 0755), 0);
  snprintf(file, sizeof file, "%s/old.csv", frozen);
  ck_assert_int_eq(test_write_bytes(file, "old", 3, 0), 0);
  ck_assert_int_eq(
      symlink("frozen/old.csv", in_dir(link_a, sizeof link_a, "link")), 0);
  ck_assert_int_eq(symlink("/proc/x.st", in_dir(link_p, sizeof link_p, "p")),
                   0);
  char command[4400];
  snprintf(command, sizeof command, "chattr +i '%s' 2>/dev/null", frozen);
  if (system(command) != 0 && (geteuid() == 0 || chmod(frozen, 0555) != 0)) {
    printf("note: a frozen folder: chattr +i is refused here and root "
           "ignores chmod 0555: not run\n");
  } else {
    for (int l = 0; l < 3; l++) {
      ck_assert_msg(write_target_check(labels[l], link_a, err, sizeof err) ==
                        -1,
                    "%s: a link into a frozen folder was accepted", labels[l]);
      ck_assert_msg(strstr(err, labels[l]) && strstr(err, link_a) &&
                        strstr(err, "no file can be created in") &&
                        strstr(err, "frozen'"),
                    "%s", err);
    }
  }
  if (access("/proc/self", F_OK) != 0) return;
  ck_assert_int_eq(write_target_check("--save", link_p, err, sizeof err), -1);
  ck_assert_msg(strstr(err, "no file can be created in '/proc'"), "%s", err);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("write_target");
  TCase *tc = tcase_create("write_target");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_loop_test(tc, targets_are_checked, 0,
                      (int)(sizeof targets / sizeof targets[0]));
  tcase_add_test(tc, recheck_and_same);
  tcase_add_test(tc, run_log_creates_nothing_before_commit);
  tcase_add_test(tc, a_name_the_check_passes_commits);
  tcase_add_test(tc, commit_refuses_a_target_that_changed);
  tcase_add_loop_test(tc, links_are_written_through, 0,
                      (int)(sizeof writers / sizeof writers[0]));
  tcase_add_test(tc, link_into_frozen_folder_is_refused);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 0);
}
