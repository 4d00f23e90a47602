/* test_cli.c: the real mnist_train and mnist_bench binaries: --help, bad
 * flags, bad data directories, bad --log and --json paths give a non-zero exit
 * and a message naming the problem without touching the GPU; --check-flags and
 * --check-data; a --log file is never destroyed by a run that did not
 * train. Runs anywhere (where a GPU exists, one case trains a tiny set). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/test_util.h"

static char dir[4096];

static void setup(void) {
  ck_assert_int_eq(test_make_temp_dir(dir, sizeof dir), 0);
}
static void teardown(void) {
  test_remove_dir(dir);
}

static int run_program(const char *program, const char *args, char *out,
                       size_t size) {
  return test_run_program(out, size, dir, NULL, program, args);
}

static int run_train(const char *args, char *out, size_t size) {
  return run_program(MNIST_TRAIN_PATH, args, out, size);
}

START_TEST(help_prints_usage) {
  char out[8192];
  ck_assert_int_eq(run_train("--help", out, sizeof out), 0);
  ck_assert_ptr_nonnull(strstr(out, "usage: mnist_train"));
  ck_assert_ptr_nonnull(strstr(out, "--epochs"));
  ck_assert_ptr_nonnull(strstr(out, "--mode"));
}
END_TEST

/* A bad command line, in each program: exit 2, the error and one line
 * pointing at --help, exactly two lines (no usage pushing the error off
 * screen). */
static const char *const bad_lines[][3] = {
    {MNIST_TRAIN_PATH, "--epochs zero", "--epochs: expected"},
    {MNIST_TRAIN_PATH, "--frobnicate", "unknown flag '--frobnicate'"},
    {MNIST_TRAIN_PATH, "--epochs 0", "expected --load FILE"},
    {MNIST_BENCH_PATH, "--repeats 0", "--repeats: expected a whole number"},
    {MNIST_BENCH_PATH, "--fast", "unknown flag '--fast'"},
    {MNIST_PREDICT_PATH, "--index", "--index: expected a value"},
    {MNIST_PREDICT_PATH, "", "expected --model FILE"},
};

START_TEST(bad_flag_gives_two_lines_and_code_2) {
  const char *program = bad_lines[_i][0], *name = strrchr(program, '/') + 1;
  char out[8192], line[2][512];
  ck_assert_int_eq(run_program(program, bad_lines[_i][1], out, sizeof out), 2);
  snprintf(line[0], sizeof line[0], "%s: ", name);
  snprintf(line[1], sizeof line[1], "\n%s: '%s --help' lists the flags\n", name,
           name);
  const char *hint = strstr(out, line[1]);
  ck_assert_msg(strncmp(out, line[0], strlen(line[0])) == 0 &&
                    strstr(out, bad_lines[_i][2]) && hint &&
                    strchr(out, '\n') == hint &&
                    hint[strlen(line[1])] == '\0' && !strstr(out, "usage"),
                "%s %s: %s", name, bad_lines[_i][1], out);
}
END_TEST

START_TEST(bench_flags) {
  char out[8192];
  ck_assert_int_eq(run_program(MNIST_BENCH_PATH, "--help", out, sizeof out), 0);
  ck_assert_ptr_nonnull(strstr(out, "usage: mnist_bench"));
  ck_assert_int_eq(
      run_program(MNIST_BENCH_PATH, "--repeats 0", out, sizeof out), 2);
  ck_assert_ptr_nonnull(
      strstr(out, "--repeats: expected a whole number from 1 to"));
  ck_assert_int_eq(run_program(MNIST_BENCH_PATH, "--fast", out, sizeof out), 2);
  ck_assert_ptr_nonnull(strstr(out, "unknown flag '--fast'"));
  ck_assert_int_eq(
      run_program(MNIST_BENCH_PATH, "--repeats 5x", out, sizeof out), 2);
  ck_assert_int_eq(
      run_program(MNIST_BENCH_PATH, "--device abc", out, sizeof out), 2);
  ck_assert_int_eq(
      run_program(MNIST_BENCH_PATH, "--data-dir nowhere", out, sizeof out), 1);
  ck_assert_msg(strstr(out, "nowhere"), "%s", out);
}
END_TEST

/* --json is checked before the data (there is none here) and the GPU: a
 * path that cannot be replaced is refused with exit 2, naming --json; a
 * good one passes on to the data check and creates nothing. */
START_TEST(bench_json_path_checked_first) {
  static const char *const bad[][2] = {
      {"/nonexistent/x.json", "expected a writable folder"},
      {"/proc/x.json", "no file can be created in '/proc'"},
      {".", "expected a file name, found a folder"},
      {"fifo", "expected a regular file to replace, found a FIFO"},
      {"/dev/null", "found a character device"},
  };
  char out[8192], args[256], path[4300];
  snprintf(path, sizeof path, "%s/fifo", dir);
  ck_assert_int_eq(mkfifo(path, 0600), 0);
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    snprintf(args, sizeof args, "--json %s --data-dir nowhere", bad[i][0]);
    int code = run_program(MNIST_BENCH_PATH, args, out, sizeof out);
    ck_assert_msg(code == 2 && strstr(out, "--json") &&
                      strstr(out, bad[i][1]) && !strstr(out, "nowhere"),
                  "%s: exit %d: %s", bad[i][0], code, out);
  }
  ck_assert_int_eq(run_program(MNIST_BENCH_PATH,
                               "--json ok.json --data-dir nowhere", out,
                               sizeof out),
                   1);
  ck_assert_msg(strstr(out, "nowhere") && !strstr(out, "--json"), "%s", out);
  snprintf(path, sizeof path, "%s/ok.json", dir);
  ck_assert_int_ne(access(path, F_OK), 0);
}
END_TEST

START_TEST(missing_data_dir_says_how_to_download) {
  char out[8192];
  ck_assert_int_eq(run_train("--data-dir nowhere", out, sizeof out), 1);
  ck_assert_msg(strstr(out, "nowhere") && strstr(out, "download_mnist.sh"),
                "%s", out);
}
END_TEST

/* Where the data folder came from is said: a bad $MNIST_DIR is named as
 * $MNIST_DIR's; with none at all, the message carries the program's name
 * (unless the source folder holds data/mnist, which is then used). */
START_TEST(data_source_is_said) {
  char out[8192];
  ck_assert_int_eq(test_run_program(out, sizeof out, dir, "/nonexistent/mnist",
                                    MNIST_TRAIN_PATH, "--check-data"),
                   1);
  ck_assert_msg(strstr(out, "mnist_train: /nonexistent/mnist") &&
                    strstr(out, "came from $MNIST_DIR"),
                "%s", out);
  struct stat info;
  if (stat(MNIST_SOURCE_DIR "/data/mnist", &info) == 0) {
    printf("note: %s/data/mnist exists: the no-data message is not "
           "checked\n",
           MNIST_SOURCE_DIR);
    return;
  }
  ck_assert_int_eq(run_train("--check-data", out, sizeof out), 1);
  ck_assert_msg(strstr(out, "mnist_train: no MNIST data: looked in"), "%s",
                out);
}
END_TEST

typedef struct bad_dir {
  const char *name;
  const char *file; /* file to damage, relative to the data dir */
  int action;       /* 0 truncate to 100 bytes, 1 delete, 2 swap */
  const char *words;
} bad_dir;

static const bad_dir bad_dirs[] = {
    {"truncated images", "train-images-idx3-ubyte", 0, "truncated"},
    {"missing test labels", "t10k-labels-idx1-ubyte", 1, "t10k-labels"},
    {"swapped", "train-images-idx3-ubyte", 2, "swapped"},
};

START_TEST(bad_data_is_named_before_the_gpu) {
  const bad_dir *c = &bad_dirs[_i];
  char out[8192], path[4300], other[4300];
  ck_assert_int_eq(test_write_tiny_mnist(dir, 20, 10, 0), 0);
  snprintf(path, sizeof path, "%s/%s", dir, c->file);
  if (c->action == 0) ck_assert_int_eq(truncate(path, 100), 0);
  if (c->action == 1) ck_assert_int_eq(remove(path), 0);
  if (c->action == 2) {
    snprintf(other, sizeof other, "%s/train-labels-idx1-ubyte", dir);
    char tmp[4300];
    snprintf(tmp, sizeof tmp, "%s/swap.tmp", dir);
    ck_assert_int_eq(rename(path, tmp), 0);
    ck_assert_int_eq(rename(other, path), 0);
    ck_assert_int_eq(rename(tmp, other), 0);
  }
  int code = run_train("--data-dir .", out, sizeof out);
  ck_assert_msg(code == 1, "%s: exit %d: %s", c->name, code, out);
  ck_assert_msg(strstr(out, c->words) != NULL, "%s: lacks '%s': %s", c->name,
                c->words, out);
  ck_assert_msg(strstr(out, c->file) != NULL, "%s: does not name %s: %s",
                c->name, c->file, out);
}
END_TEST

/* Reads a whole small file into out; returns its length or -1. */
static long slurp(const char *path, char *out, size_t size) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  size_t got = fread(out, 1, size - 1, f);
  out[got] = '\0';
  fclose(f);
  return (long)got;
}

/* A run that fails before training (bad data, no GPU) leaves an existing
 * --log file exactly as it was; a log path that cannot work is refused
 * before the data is read. */
START_TEST(log_is_never_clobbered) {
  const char *precious = "epoch,train_loss\n1,0.5\n";
  char out[8192], path[4300], content[256];
  snprintf(path, sizeof path, "%s/precious.csv", dir);
  ck_assert_int_eq(test_write_bytes(path, precious, strlen(precious), 0), 0);
  /* Bad data: truncated images. */
  ck_assert_int_eq(test_write_tiny_mnist(dir, 20, 10, 0), 0);
  char images[4300];
  snprintf(images, sizeof images, "%s/train-images-idx3-ubyte", dir);
  ck_assert_int_eq(truncate(images, 100), 0);
  ck_assert_int_eq(
      run_train("--data-dir . --log precious.csv", out, sizeof out), 1);
  ck_assert_int_ge(slurp(path, content, sizeof content), 0);
  ck_assert_str_eq(content, precious);
  /* Good data: without a GPU the run stops before training and the file
   * stays; with one, a tiny run trains and replaces it with its rows. */
  ck_assert_int_eq(test_write_tiny_mnist(dir, 20, 10, 0), 0);
  int code = run_train("--data-dir . --log precious.csv --hidden 8 --epochs 2",
                       out, sizeof out);
  ck_assert_int_ge(slurp(path, content, sizeof content), 0);
  if (strstr(out, "training needs a CUDA GPU")) {
    ck_assert_int_eq(code, 1);
    ck_assert_str_eq(content, precious);
  } else {
    ck_assert_msg(code == 0, "%s", out);
    ck_assert_msg(strncmp(content, "epoch,train_loss,train_accuracy", 31) ==
                          0 &&
                      strstr(content, "\n2,"),
                  "%s", content);
  }
  /* No temporary is left behind. */
  char listing[8192];
  snprintf(listing, sizeof listing, "ls '%s' | grep -c partial", dir);
  FILE *pipe = popen(listing, "r");
  ck_assert_ptr_nonnull(pipe);
  char count[16] = "";
  ck_assert_ptr_nonnull(fgets(count, sizeof count, pipe));
  pclose(pipe);
  ck_assert_int_eq(atoi(count), 0);
  /* Paths that cannot work: named at once, exit 2 (as a bad flag, and as
   * mnist_bench's --json). */
  ck_assert_int_eq(
      run_train("--data-dir . --log no/such/folder/log.csv", out, sizeof out),
      2);
  ck_assert_msg(strstr(out, "no/such/folder/log.csv") && strstr(out, "folder"),
                "%s", out);
  ck_assert_int_eq(run_train("--data-dir . --log .", out, sizeof out), 2);
  ck_assert_msg(strstr(out, "found a folder"), "%s", out);
}
END_TEST

/* --check-flags parses only; --check-data loads and names the files read. */
START_TEST(check_flags_and_data) {
  char out[8192];
  ck_assert_int_eq(
      run_train("--check-flags --epochs 3 --data-dir nowhere", out, sizeof out),
      0);
  ck_assert_int_eq(run_train("--check-flags --epochs 0", out, sizeof out), 2);
  ck_assert_int_eq(test_write_tiny_mnist(dir, 20, 10, 1), 0);
  ck_assert_int_eq(run_train("--check-data --data-dir .", out, sizeof out), 0);
  ck_assert_msg(strstr(out, "train-images-idx3-ubyte.gz") &&
                    strstr(out, "t10k-labels-idx1-ubyte.gz") &&
                    strstr(out, "20 train, 10 test"),
                "%s", out);
}
END_TEST

/* Checkpoints: a bad --load file is named before the data is read (no data
 * folder here) and before the GPU; --save into a missing folder or onto a
 * folder is refused before anything runs; mnist_predict checks its flags,
 * its model and its image the same way. */
START_TEST(checkpoints_are_checked_first) {
  char out[8192];
  ck_assert_int_eq(run_train("--load missing.st", out, sizeof out), 1);
  ck_assert_msg(strstr(out, "missing.st: expected a safetensors file"), "%s",
                out);
  char path[4300];
  snprintf(path, sizeof path, "%s/bad.st", dir);
  ck_assert_int_eq(test_write_bytes(path, "not a checkpoint", 16, 0), 0);
  ck_assert_int_eq(run_train("--load bad.st --epochs 0", out, sizeof out), 1);
  ck_assert_msg(strstr(out, "bad.st: expected") && !strstr(out, "data"), "%s",
                out);
  /* A valid file of another network (3-2): refused, named, before the data
   * (there is none here). */
  const char *header = "{\"0.weight\":{\"dtype\":\"F32\",\"shape\":[2,3],"
                       "\"data_offsets\":[0,24]},\"0.bias\":{\"dtype\":"
                       "\"F32\",\"shape\":[2],\"data_offsets\":[24,32]}}";
  char file[512] = {0};
  size_t len = strlen(header), padded = (len + 7) / 8 * 8;
  for (int b = 0; b < 8; b++)
    file[b] = (char)((padded >> (8 * b)) & 0xff);
  memset(file + 8, ' ', padded);
  memcpy(file + 8, header, len);
  snprintf(path, sizeof path, "%s/small.st", dir);
  ck_assert_int_eq(test_write_bytes(path, file, 8 + padded + 32, 0), 0);
  ck_assert_int_eq(run_train("--load small.st", out, sizeof out), 1);
  ck_assert_msg(strstr(out, "small.st: expected a 784-...-10 network, found "
                            "3-2") &&
                    !strstr(out, "data"),
                "%s", out);
  ck_assert_int_eq(run_train("--save no/such/m.st", out, sizeof out), 2);
  ck_assert_msg(strstr(out, "expected a writable folder 'no/such'"), "%s", out);
  ck_assert_int_eq(run_train("--save .", out, sizeof out), 2);
  ck_assert_msg(strstr(out, "expected a file name, found a folder"), "%s", out);
  ck_assert_int_eq(run_program(MNIST_PREDICT_PATH, "", out, sizeof out), 2);
  ck_assert_ptr_nonnull(strstr(out, "expected --model FILE"));
  ck_assert_int_eq(
      run_program(MNIST_PREDICT_PATH, "--model bad.st", out, sizeof out), 1);
  ck_assert_ptr_nonnull(strstr(out, "bad.st: expected"));
}
END_TEST

/* What --help says is what the code does: --load's widths must agree with
 * --hidden (a mismatch is refused), and --hidden's limit is the one the
 * parser enforces. */
START_TEST(help_says_what_the_code_does) {
  char out[8192], limit[64];
  ck_assert_int_eq(run_train("--help", out, sizeof out), 0);
  const char *load = strstr(out, "--load FILE");
  ck_assert_ptr_nonnull(load);
  ck_assert_msg(strstr(load, "must agree") &&
                    strstr(load, "must agree") < strstr(load, "\n  --"),
                "%s", load);
  ck_assert_ptr_null(strstr(out, "unless --hidden"));
  ck_assert_int_eq(run_train("--check-flags --hidden "
                             "1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1",
                             out, sizeof out),
                   2);
  const char *range = strstr(out, "expected 1 to ");
  ck_assert_msg(range && sscanf(range, "expected 1 to %63s", limit) == 1, "%s",
                out);
  ck_assert_int_eq(
      run_train("--check-flags --hidden 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1", out,
                sizeof out),
      0);
  ck_assert_int_eq(run_train("--help", out, sizeof out), 0);
  char words[128];
  snprintf(words, sizeof words, "1 to %s widths", limit);
  ck_assert_msg(strstr(out, words), "lacks '%s': %s", words, out);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("cli");
  TCase *tc = tcase_create("cli");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, help_prints_usage);
  tcase_add_loop_test(tc, bad_flag_gives_two_lines_and_code_2, 0,
                      (int)(sizeof bad_lines / sizeof bad_lines[0]));
  tcase_add_test(tc, missing_data_dir_says_how_to_download);
  tcase_add_test(tc, data_source_is_said);
  tcase_add_test(tc, bench_flags);
  tcase_add_test(tc, bench_json_path_checked_first);
  tcase_add_test(tc, log_is_never_clobbered);
  tcase_add_test(tc, check_flags_and_data);
  tcase_add_test(tc, checkpoints_are_checked_first);
  tcase_add_test(tc, help_says_what_the_code_does);
  tcase_add_loop_test(tc, bad_data_is_named_before_the_gpu, 0,
                      (int)(sizeof bad_dirs / sizeof bad_dirs[0]));
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 0);
}
