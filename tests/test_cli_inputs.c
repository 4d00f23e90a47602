/* test_cli_inputs.c: the real programs on the files they read and write
 * (issue 30): a FIFO given as --model, --load or --image is refused at
 * once, naming it (a plain open would wait for a writer for ever); no
 * output replaces an input: --log onto --load's checkpoint, --log or
 * --save onto a data file and mnist_bench --json onto one are refused with
 * exit 2 before anything is read, the file left as it was, while --save
 * onto --load's own file (a run that updates its checkpoint) passes;
 * --check-flags checks the output paths too (exit 2 for what the run
 * would refuse) and mnist_train's says what would run, FP8's padding
 * change included. Runs anywhere: every case stops before the GPU. */
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

/* `program` with `args` in the temporary folder, MNIST_DIR unset, bounded
 * to 20 s (a program waiting on a FIFO is killed: exit 124). */
static int run(const char *program, const char *args, char *out, size_t size) {
  char bounded[4400];
  snprintf(bounded, sizeof bounded, "20 '%s' %s", program, args);
  return test_run_program(out, size, dir, NULL, "timeout", bounded);
}

/* dir/name. */
static const char *in_dir(char *out, size_t size, const char *name) {
  snprintf(out, size, "%s/%s", dir, name);
  return out;
}

/* The whole of a small file, or "" when it cannot be read. */
static const char *contents(const char *path, char *out, size_t size) {
  FILE *f = fopen(path, "rb");
  size_t got = f ? fread(out, 1, size - 1, f) : 0;
  out[got] = '\0';
  if (f) fclose(f);
  return out;
}

/* A FIFO no one writes to, as each program's input. */
START_TEST(fifo_inputs_are_refused_at_once) {
  static const char *const cases[][3] = {
      {MNIST_PREDICT_PATH, "--model fifo", "fifo: expected a safetensors"},
      {MNIST_TRAIN_PATH, "--load fifo --data-dir .",
       "fifo: expected a safetensors"},
      {MNIST_PREDICT_PATH, "--model m.st --image fifo", "--image"},
  };
  char out[8192], path[4300];
  ck_assert_int_eq(mkfifo(in_dir(path, sizeof path, "fifo"), 0600), 0);
  /* --image is read after the model: a model it gets past. */
  ck_assert_int_eq(test_write_tiny_mnist(dir, 20, 10, 0), 0);
  const char *header = "{\"0.weight\":{\"dtype\":\"F32\",\"shape\":[10,784],"
                       "\"data_offsets\":[0,31360]},\"0.bias\":{\"dtype\":"
                       "\"F32\",\"shape\":[10],\"data_offsets\":[31360,"
                       "31400]}}";
  float *zeros = calloc(7850, sizeof(float));
  ck_assert_ptr_nonnull(zeros);
  ck_assert_int_eq(test_write_safetensors(in_dir(path, sizeof path, "m.st"),
                                          header, zeros, 7850),
                   0);
  free(zeros);
  for (int i = 0; i < 3; i++) {
    int code = run(cases[i][0], cases[i][1], out, sizeof out);
    ck_assert_msg(code == 1 && strstr(out, cases[i][2]) &&
                      strstr(out, "found a FIFO"),
                  "%s: exit %d: %s", cases[i][1], code, out);
  }
}
END_TEST

/* No output replaces what the run reads: refused with exit 2 before
 * anything is read, the input left byte for byte. */
START_TEST(outputs_never_replace_inputs) {
  static const char *const cases[][3] = {
      {MNIST_TRAIN_PATH, "--data-dir . --load ck.st --log ck.st",
       "--log ck.st and --load ck.st: expected two files"},
      {MNIST_TRAIN_PATH, "--data-dir . --load ck.st --log ./ck-link",
       "--log ./ck-link and --load ck.st: expected two files"},
      {MNIST_TRAIN_PATH, "--data-dir . --log train-images-idx3-ubyte",
       "--log train-images-idx3-ubyte: expected a file other than the data"},
      {MNIST_TRAIN_PATH, "--data-dir . --save t10k-labels-idx1-ubyte",
       "--save t10k-labels-idx1-ubyte: expected a file other than the data"},
      /* A name the loader would read too, not there yet. */
      {MNIST_TRAIN_PATH, "--data-dir . --log train-images-idx3-ubyte.gz",
       "found the MNIST file"},
      {MNIST_BENCH_PATH, "--data-dir . --json train-labels-idx1-ubyte",
       "--json train-labels-idx1-ubyte: expected a file other than the data"},
  };
  char out[8192], path[4300], before[256], after[256];
  ck_assert_int_eq(test_write_tiny_mnist(dir, 20, 10, 0), 0);
  const char *precious = "a checkpoint, as far as the flags know";
  ck_assert_int_eq(test_write_bytes(in_dir(path, sizeof path, "ck.st"),
                                    precious, strlen(precious), 0),
                   0);
  ck_assert_int_eq(symlink("ck.st", in_dir(path, sizeof path, "ck-link")), 0);
  in_dir(path, sizeof path, "train-images-idx3-ubyte");
  struct stat info;
  ck_assert_int_eq(stat(path, &info), 0);
  long size = (long)info.st_size;
  for (int i = 0; i < 6; i++) {
    int code = run(cases[i][0], cases[i][1], out, sizeof out);
    ck_assert_msg(code == 2 && strstr(out, cases[i][2]), "%s: exit %d: %s",
                  cases[i][1], code, out);
    ck_assert_str_eq(
        contents(in_dir(path, sizeof path, "ck.st"), before, sizeof before),
        precious);
    ck_assert_int_eq(
        stat(in_dir(path, sizeof path, "train-images-idx3-ubyte"), &info), 0);
    ck_assert_int_eq((long)info.st_size, size);
  }
  ck_assert_int_ne(
      access(in_dir(path, sizeof path, "train-images-idx3-ubyte.gz"), F_OK), 0);
  /* --save onto --load's file updates the checkpoint: past the outputs'
   * checks, to the checkpoint's own (this one is not a safetensors file). */
  int code = run(MNIST_TRAIN_PATH, "--data-dir . --load ck.st --save ck.st",
                 out, sizeof out);
  ck_assert_msg(code == 1 && strstr(out, "ck.st: expected") &&
                    !strstr(out, "two files"),
                "exit %d: %s", code, out);
  ck_assert_str_eq(
      contents(in_dir(path, sizeof path, "ck.st"), after, sizeof after),
      precious);
}
END_TEST

/* --check-flags checks what the run would refuse, output paths included
 * (exit 2), leaves no file, and mnist_train's says what would run. */
START_TEST(check_flags_checks_outputs_and_says_what_would_run) {
  static const char *const refused[][2] = {
      {MNIST_BENCH_PATH, "--check-flags --json /dev/null"},
      {MNIST_TRAIN_PATH, "--check-flags --log /dev/null"},
      {MNIST_TRAIN_PATH, "--check-flags --save no/such/folder/m.st"},
      {MNIST_TRAIN_PATH, "--check-flags --data-dir . --log "
                         "t10k-images-idx3-ubyte"},
      {MNIST_TRAIN_PATH, "--check-flags --load x.st --log x.st"},
  };
  char out[8192];
  ck_assert_int_eq(test_write_tiny_mnist(dir, 20, 10, 0), 0);
  for (int i = 0; i < 5; i++) {
    int code = run(refused[i][0], refused[i][1], out, sizeof out);
    ck_assert_msg(code == 2 && !strstr(out, "flags ok"), "%s: exit %d: %s",
                  refused[i][1], code, out);
  }
  int code = run(MNIST_TRAIN_PATH,
                 "--check-flags --precision fp8 --pad-to 8 --hidden 100 "
                 "--log run.csv --save m.st",
                 out, sizeof out);
  ck_assert_msg(code == 0 &&
                    strstr(out, "mnist_train: flags ok: would train "
                                "784-100-10 from random weights, fp8") &&
                    strstr(out, "units padded to 16 (fp8's rule for m and "
                                "k: 8 -> 16)") &&
                    strstr(out, "log to run.csv") &&
                    strstr(out, "saves to m.st"),
                "exit %d: %s", code, out);
  code = run(MNIST_TRAIN_PATH, "--check-flags --epochs 0 --load m.st", out,
             sizeof out);
  ck_assert_msg(code == 0 && strstr(out, "would evaluate the network of m.st"),
                "exit %d: %s", code, out);
  /* Nothing left: the data set's four files only. */
  ck_assert_int_eq(test_count_entries(dir), 4);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("cli_inputs");
  TCase *tc = tcase_create("cli_inputs");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, fifo_inputs_are_refused_at_once);
  tcase_add_test(tc, outputs_never_replace_inputs);
  tcase_add_test(tc, check_flags_checks_outputs_and_says_what_would_run);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 0);
}
