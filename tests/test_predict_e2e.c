/* test_predict_e2e.c: mnist_predict and mnist_train --epochs 0 without a
 * trainer, end to end on the GPU:
 *  - --image needs no data at all: run from an empty folder with MNIST_DIR
 *    pointing nowhere, on checkpoints written from known weights, the
 *    class printed depends on the image and on the file's own pixel
 *    normalisation (needs only a GPU); a --data-dir holding only a
 *    truncated train-images file is not read either, and --mistakes with
 *    --image is refused;
 *  - a short training run's last test accuracy, mnist_train --epochs 0
 *    --load and mnist_predict on the test split, neither told the batch or
 *    the precision (both taken from the file), give the same count of
 *    correct images: exactly in FP32, within 5 of 10000 in BF16 (see
 *    bf16_slack), from a folder holding the test split only (needs the
 *    data: skips, naming MNIST_DIR, without it).
 * Skips (77) without a GPU. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checkpoint/mlp_checkpoint.h"
#include "tests/test_gpu.h"
#include "tests/test_util.h"

static const char *mnist_dir; /* NULL: the data tests are not added */
static char dir[4096];

/* A 784-4-10 checkpoint: hidden unit 0 sums every input (the others are
 * 0), output 3 reads that unit with weight 1, output 7 has bias 1. So a
 * black image (inputs pixel * scale + shift = shift) predicts 7 when
 * shift <= 0, and a white one 3 when 784 * (255 * scale + shift) > 1. */
static void write_model(const char *path, const char *scale,
                        const char *shift) {
  int widths[] = {784, 4, 10};
  mlp_layout lay;
  char err[512];
  ck_assert_int_eq(mlp_layout_init(&lay, widths, 2, err, sizeof err), 0);
  float *slab = calloc(lay.slab_floats, sizeof(float));
  ck_assert_ptr_nonnull(slab);
  for (int i = 0; i < 784; i++)
    slab[lay.w_offset[0] + i] = 1.0f; /* W1[0][i], row stride lt_ld(784) */
  slab[lay.w_offset[1] + 3 * 8 + 0] = 1.0f; /* W2[3][0], row stride 8 */
  slab[lay.b_offset[1] + 7] = 1.0f;
  mlp_checkpoint_meta meta;
  mlp_checkpoint_meta_init(&meta);
  snprintf(meta.activation, sizeof meta.activation, "relu");
  snprintf(meta.pixel_scale, sizeof meta.pixel_scale, "%s", scale);
  snprintf(meta.pixel_shift, sizeof meta.pixel_shift, "%s", shift);
  ck_assert_msg(mlp_checkpoint_save(path, &lay, slab, &meta, err, sizeof err) ==
                    0,
                "%s", err);
  free(slab);
}

static void write_pgm(const char *path, unsigned char shade) {
  FILE *f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  fprintf(f, "P5\n28 28\n255\n");
  for (int i = 0; i < 784; i++)
    fputc(shade, f);
  ck_assert_int_eq(fclose(f), 0);
}

/* mnist_predict --model M --image P run in an empty folder with no data
 * anywhere; returns its exit code, output in `out`. */
static int predict_alone(const char *model, const char *image, char *out,
                         size_t size) {
  char empty[4300], command[32768];
  snprintf(empty, sizeof empty, "%s/empty", dir);
  mkdir(empty, 0700);
  snprintf(command, sizeof command,
           "cd '%s' && MNIST_DIR='%s/nowhere' '%s' --model '%s' --image '%s' "
           "2>&1",
           empty, dir, MNIST_PREDICT_PATH, model, image);
  return test_capture(command, out, size);
}

START_TEST(image_needs_no_data) {
  char model[4300], shifted[4300], black[4300], white[4300], out[16384];
  snprintf(model, sizeof model, "%s/known.safetensors", dir);
  snprintf(shifted, sizeof shifted, "%s/shifted.safetensors", dir);
  snprintf(black, sizeof black, "%s/black.pgm", dir);
  snprintf(white, sizeof white, "%s/white.pgm", dir);
  write_model(model, "0.00392156886", "0");
  /* x = pixel / 255 - 1: white is 0 everywhere, black -1. */
  write_model(shifted, "0.00392156886", "-1");
  write_pgm(black, 0);
  write_pgm(white, 255);
  ck_assert_int_eq(predict_alone(model, black, out, sizeof out), 0);
  ck_assert_msg(strstr(out, "predicted 7\n") && strstr(out, "probabilities"),
                "%s", out);
  ck_assert_int_eq(predict_alone(model, white, out, sizeof out), 0);
  ck_assert_msg(strstr(out, "predicted 3\n"), "%s", out);
  /* The file's own normalisation: white is 0 after its shift. */
  ck_assert_int_eq(predict_alone(shifted, white, out, sizeof out), 0);
  ck_assert_msg(strstr(out, "predicted 7\n"), "%s", out);
}
END_TEST

/* --image with --data-dir naming a damaged folder (a truncated
 * train-images file, no test files) and MNIST_DIR pointing nowhere: the
 * folder is never read and the prediction is the same; --mistakes with
 * --image is refused (exit 2) before anything runs. */
START_TEST(image_ignores_a_damaged_data_folder) {
  char model[4300], black[4300], broken[4300], command[32768], out[16384];
  snprintf(model, sizeof model, "%s/damaged.safetensors", dir);
  snprintf(black, sizeof black, "%s/damaged-black.pgm", dir);
  snprintf(broken, sizeof broken, "%s/broken", dir);
  write_model(model, "0.00392156886", "0");
  write_pgm(black, 0);
  ck_assert_int_eq(mkdir(broken, 0700), 0);
  char images[4400];
  snprintf(images, sizeof images, "%s/train-images-idx3-ubyte", broken);
  ck_assert_int_eq(test_write_bytes(images, "\0\0\x08\x03\0\0", 6, 0), 0);
  snprintf(command, sizeof command,
           "MNIST_DIR='%s/nowhere' '%s' --model '%s' --image '%s' --data-dir "
           "'%s' 2>&1",
           dir, MNIST_PREDICT_PATH, model, black, broken);
  ck_assert_msg(test_capture(command, out, sizeof out) == 0, "%s", out);
  ck_assert_msg(strstr(out, "predicted 7\n") && !strstr(out, "train-images"),
                "%s", out);
  snprintf(command, sizeof command,
           "'%s' --model '%s' --image '%s' --mistakes 3 2>&1",
           MNIST_PREDICT_PATH, model, black);
  ck_assert_int_eq(test_capture(command, out, sizeof out), 2);
  ck_assert_msg(strstr(out, "--mistakes") && strstr(out, "--image") &&
                    !strstr(out, "predicted"),
                "%s", out);
}
END_TEST

/* A folder with links to the test split's files of the real data only. */
static void test_split_folder(char *out, size_t size) {
  snprintf(out, size, "%s/test-only", dir);
  mkdir(out, 0700);
  char command[16384], text[4096];
  snprintf(command, sizeof command,
           "for f in '%s'/t10k-*; do ln -s \"$f\" '%s'/; done; ls '%s' 2>&1",
           mnist_dir, out, out);
  ck_assert_int_eq(test_capture(command, text, sizeof text), 0);
  ck_assert_msg(strstr(text, "t10k-images") && !strstr(text, "train-"), "%s",
                text);
}

/* The count in "(N of 10000)" in `out`; -1 when there is none. */
static int correct_in(const char *out) {
  const char *at = strstr(out, " of 10000)");
  while (at && at > out && at[-1] >= '0' && at[-1] <= '9')
    at--;
  return at && at > out && at[-1] == '(' ? atoi(at) : -1;
}

/* BF16: the evaluation makes the same forward calls on the same BF16
 * copies of the weights as the run's last epoch, but its network builds
 * its own cuBLASLt plans, and in BF16 the heuristic's choice may differ
 * between them (another split or reduction order: logits move by ~1e-3
 * relative), which can flip the argmax of the few images whose two top
 * logits nearly tie. 5 of 10000 is 0.05 %, far below any real disagreement
 * (a wrong precision or batch moves the count by tens). */
static const struct {
  const char *precision;
  int slack; /* correct images the counts may differ by */
} eval_cases[] = {{"fp32", 0}, {"bf16", 5}};

START_TEST(evaluation_agrees_with_training) {
  char model[4300], log[4300], test_only[4300], command[16384], out[16384];
  const char *precision = eval_cases[_i].precision;
  int slack = eval_cases[_i].slack;
  snprintf(model, sizeof model, "%s/trained-%s.safetensors", dir, precision);
  snprintf(log, sizeof log, "%s/trained-%s.csv", dir, precision);
  snprintf(command, sizeof command,
           "'%s' --data-dir '%s' --hidden 64 --batch 200 --epochs 1 "
           "--precision %s --save '%s' --log '%s' 2>&1",
           MNIST_TRAIN_PATH, mnist_dir, precision, model, log);
  ck_assert_msg(test_capture(command, out, sizeof out) == 0, "%s", out);
  FILE *f = fopen(log, "r");
  ck_assert_ptr_nonnull(f);
  char line[512];
  double row[5] = {0};
  int rows = 0;
  while (fgets(line, sizeof line, f))
    rows += sscanf(line, "%lf,%lf,%lf,%lf,%lf", &row[0], &row[1], &row[2],
                   &row[3], &row[4]) == 5;
  fclose(f);
  ck_assert_int_eq(rows, 1);
  int want = (int)(row[4] * 10000 + 0.5);
  test_split_folder(test_only, sizeof test_only);
  snprintf(command, sizeof command,
           "'%s' --data-dir '%s' --load '%s' --epochs 0 2>&1", MNIST_TRAIN_PATH,
           test_only, model);
  ck_assert_msg(test_capture(command, out, sizeof out) == 0, "%s", out);
  int got = correct_in(out);
  ck_assert_msg(got >= 0 && abs(got - want) <= slack &&
                    strstr(out, "confusion matrix") &&
                    strstr(out, "batches of 200") && strstr(out, precision),
                "%s: expected %d (+-%d) of 10000, batches of 200, in:\n%s",
                precision, want, slack, out);
  snprintf(command, sizeof command, "'%s' --data-dir '%s' --model '%s' 2>&1",
           MNIST_PREDICT_PATH, test_only, model);
  ck_assert_msg(test_capture(command, out, sizeof out) == 0, "%s", out);
  got = correct_in(out);
  ck_assert_msg(got >= 0 && abs(got - want) <= slack &&
                    strstr(out, "most confident mistakes"),
                "%s: expected %d (+-%d) of 10000 in:\n%s", precision, want,
                slack, out);
  snprintf(command, sizeof command,
           "'%s' --data-dir '%s' --model '%s' --index 7 2>&1",
           MNIST_PREDICT_PATH, test_only, model);
  ck_assert_msg(test_capture(command, out, sizeof out) == 0, "%s", out);
  ck_assert_msg(strstr(out, "(label "), "%s", out);
}
END_TEST

int main(void) {
  test_require_gpu("predict_e2e");
  char why[1024];
  const char *mnist[] = {MNIST_SOURCE_DIR "/data/mnist",
                         MNIST_SOURCE_DIR "/../shared/data/mnist", NULL};
  mnist_dir = test_find_data("MNIST_DIR", mnist, why, sizeof why);
  if (test_make_temp_dir(dir, sizeof dir) != 0) return 1;
  Suite *suite = suite_create("predict_e2e");
  TCase *tc = tcase_create("predict");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, image_needs_no_data);
  tcase_add_test(tc, image_ignores_a_damaged_data_folder);
  if (mnist_dir)
    tcase_add_loop_test(tc, evaluation_agrees_with_training, 0,
                        (int)(sizeof eval_cases / sizeof eval_cases[0]));
  else
    printf("SKIP predict_e2e evaluation_agrees_with_training: MNIST %s\n", why);
  suite_add_tcase(suite, tc);
  int status = test_run_suite(suite, 1);
  test_remove_dir(dir);
  return status;
}
