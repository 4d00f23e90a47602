/* test_cli_flags.c: the real mnist_bench and mnist_predict binaries'
 * flags: --check-flags parses, says what would run and reads nothing;
 * mnist_predict refuses --mistakes with --index or --image; --image reads
 * no MNIST file, even where --data-dir names a damaged folder. Runs
 * anywhere (where a GPU exists, the --image case predicts). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checkpoint/mlp_checkpoint.h"
#include "data/mnist.h"
#include "tests/test_util.h"

static char dir[4096];

static void setup(void) {
  ck_assert_int_eq(test_make_temp_dir(dir, sizeof dir), 0);
}
static void teardown(void) {
  test_remove_dir(dir);
}

/* `program` run in the temporary folder with MNIST_DIR = `mnist_dir`
 * (NULL: unset); test_run_program. */
static int run_env(const char *mnist_dir, const char *program, const char *args,
                   char *out, size_t size) {
  return test_run_program(out, size, dir, mnist_dir, program, args);
}

static int run_program(const char *program, const char *args, char *out,
                       size_t size) {
  return run_env(NULL, program, args, out, size);
}

/* mnist_bench and mnist_predict --check-flags: parse, say what would run,
 * exit 0, read nothing (no data or model here) and write nothing; bad
 * flags still exit 2. */
START_TEST(check_flags_of_bench_and_predict) {
  char out[8192], path[4300];
  ck_assert_int_eq(run_program(MNIST_BENCH_PATH,
                               "--check-flags --json out.json --repeats 3 "
                               "--precision bf16 --data-dir nowhere",
                               out, sizeof out),
                   0);
  ck_assert_msg(strstr(out, "mnist_bench: flags ok") && strstr(out, "bf16") &&
                    strstr(out, "3 timed epochs") &&
                    strstr(out, "JSON to out.json") && strstr(out, "nowhere") &&
                    !strchr(strchr(out, '\n') + 1, '\n'),
                "%s", out);
  snprintf(path, sizeof path, "%s/out.json", dir);
  ck_assert_int_ne(access(path, F_OK), 0);
  ck_assert_int_eq(run_program(MNIST_BENCH_PATH, "--check-flags --repeats 0",
                               out, sizeof out),
                   2);
  ck_assert_int_eq(run_program(MNIST_PREDICT_PATH,
                               "--check-flags --model m.st --image x.pgm", out,
                               sizeof out),
                   0);
  ck_assert_msg(strstr(out, "mnist_predict: flags ok") &&
                    strstr(out, "the image x.pgm; reads no MNIST file"),
                "%s", out);
  ck_assert_int_eq(run_program(MNIST_PREDICT_PATH,
                               "--check-flags --model m.st --index 4 "
                               "--data-dir nowhere",
                               out, sizeof out),
                   0);
  ck_assert_msg(strstr(out, "test image 4; reads the test split from nowhere"),
                "%s", out);
  /* mnist_predict runs in the checkpoint's precision unless told. */
  ck_assert_msg(strstr(out, "the checkpoint's precision, fused mode"), "%s",
                out);
  ck_assert_int_eq(run_program(MNIST_PREDICT_PATH,
                               "--check-flags --model m.st --precision bf16 "
                               "--mode unfused",
                               out, sizeof out),
                   0);
  ck_assert_msg(strstr(out, "bf16, unfused mode"), "%s", out);
  ck_assert_int_eq(run_program(MNIST_PREDICT_PATH,
                               "--check-flags --model m.st --precision fp64",
                               out, sizeof out),
                   2);
  ck_assert_msg(strstr(out, "--precision") && strstr(out, "fp64"), "%s", out);
  ck_assert_int_eq(run_program(MNIST_PREDICT_PATH,
                               "--check-flags --model m.st --mode fast", out,
                               sizeof out),
                   2);
}
END_TEST

/* --mistakes lists the test split's mistakes: with --index or --image it
 * would be ignored, so it is refused (exit 2), naming both flags, before
 * any file is read (there is no m.st here). */
START_TEST(predict_refuses_mistakes_with_one_image) {
  static const char *const args[][2] = {
      {"--model m.st --index 3 --mistakes 5", "--index"},
      {"--model m.st --mistakes=5 --image x.pgm", "--image"},
  };
  char out[8192];
  for (int i = 0; i < 2; i++) {
    int code = run_program(MNIST_PREDICT_PATH, args[i][0], out, sizeof out);
    ck_assert_msg(code == 2 && strstr(out, "--mistakes") &&
                      strstr(out, args[i][1]) && !strstr(out, "m.st"),
                  "%s: exit %d: %s", args[i][0], code, out);
  }
  ck_assert_int_eq(run_program(MNIST_PREDICT_PATH,
                               "--check-flags --model m.st --mistakes 5", out,
                               sizeof out),
                   0);
  ck_assert_msg(strstr(out, "the 5 most confident mistakes"), "%s", out);
}
END_TEST

/* --image reads no MNIST file: with a checkpoint that records its pixel
 * normalisation, a --data-dir holding only a truncated train-images file,
 * and MNIST_DIR pointing nowhere, the run gets past the data to the GPU
 * (without one it says that it needs one; with one it predicts). */
START_TEST(predict_image_needs_no_data) {
  int widths[] = {MNIST_PIXELS, 4, MNIST_CLASSES};
  mlp_layout lay;
  mlp_checkpoint_meta meta;
  char err[512], out[8192], path[4300];
  ck_assert_int_eq(mlp_layout_init(&lay, widths, 2, err, sizeof err), 0);
  float *slab = calloc(lay.slab_floats, sizeof(float));
  ck_assert_ptr_nonnull(slab);
  mlp_checkpoint_meta_init(&meta);
  snprintf(meta.pixel_scale, sizeof meta.pixel_scale, "0.00392156886");
  snprintf(meta.pixel_shift, sizeof meta.pixel_shift, "0");
  snprintf(path, sizeof path, "%s/m.st", dir);
  ck_assert_msg(mlp_checkpoint_save(path, &lay, slab, &meta, err, sizeof err) ==
                    0,
                "%s", err);
  free(slab);
  snprintf(path, sizeof path, "%s/x.pgm", dir);
  char pgm[13 + MNIST_PIXELS] = "P5\n28 28\n255\n"; /* 13: the header */
  ck_assert_int_eq(test_write_bytes(path, pgm, sizeof pgm, 0), 0);
  snprintf(path, sizeof path, "%s/broken", dir);
  ck_assert_int_eq(mkdir(path, 0755), 0);
  ck_assert_int_eq(test_write_tiny_mnist(path, 20, 10, 0), 0);
  static const char *const others[] = {"train-labels-idx1-ubyte",
                                       "t10k-images-idx3-ubyte",
                                       "t10k-labels-idx1-ubyte"};
  char file[4400];
  for (int f = 0; f < 3; f++) {
    snprintf(file, sizeof file, "%s/%s", path, others[f]);
    ck_assert_int_eq(remove(file), 0);
  }
  snprintf(file, sizeof file, "%s/train-images-idx3-ubyte", path);
  ck_assert_int_eq(truncate(file, 100), 0);
  /* The folder alone is refused where data is needed... */
  ck_assert_int_eq(run_env("/nonexistent", MNIST_PREDICT_PATH,
                           "--model m.st --data-dir broken", out, sizeof out),
                   1);
  ck_assert_msg(strstr(out, "broken"), "%s", out);
  /* ...and not read at all for --image. */
  int code =
      run_env("/nonexistent", MNIST_PREDICT_PATH,
              "--model m.st --image x.pgm --data-dir broken", out, sizeof out);
  if (strstr(out, "needs a CUDA GPU"))
    ck_assert_msg(code == 1 && !strstr(out, "train-") &&
                      !strstr(out, "broken") && !strstr(out, "MNIST"),
                  "exit %d: %s", code, out);
  else
    ck_assert_msg(code == 0 && strstr(out, "predicted "), "exit %d: %s", code,
                  out);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("cli_flags");
  TCase *tc = tcase_create("cli_flags");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, check_flags_of_bench_and_predict);
  tcase_add_test(tc, predict_refuses_mistakes_with_one_image);
  tcase_add_test(tc, predict_image_needs_no_data);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 0);
}
