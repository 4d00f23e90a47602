/* test_train_e2e.c: mnist_train end to end on the real data and the GPU:
 * one epoch of the 784-100-10 network reaches >= 95 %; fused and unfused
 * agree; two identical runs write identical logs; a diverging run stops
 * with its advice and its rows logged; a run that fails at GPU setup
 * leaves an existing log alone; FP8 learns, saves and reports what its
 * casts lost even under --quiet; Fashion-MNIST learns. Skips (77) without a
 * GPU or without the data, saying which. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "tests/test_gpu.h"
#include "tests/test_util.h"

static const char *mnist_dir, *fashion_dir;
static char dir[4096];

typedef struct run_result {
  int code;
  double test_accuracy; /* of the last epoch, 0..1 */
  char rows[4096];      /* the log without its timing columns */
} run_result;

/* Runs mnist_train with `args` and --log; parses the CSV log. */
static run_result run_train(const char *data, const char *args,
                            const char *tag) {
  run_result r = {0};
  char log[4300], command[8192];
  snprintf(log, sizeof log, "%s/%s.csv", dir, tag);
  snprintf(command, sizeof command, "'%s' --data-dir '%s' --log '%s' %s",
           MNIST_TRAIN_PATH, data, log, args);
  printf("+ %s\n", command);
  fflush(stdout);
  int status = system(command);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  FILE *f = fopen(log, "r");
  if (!f) return r;
  char line[512];
  size_t at = 0;
  while (fgets(line, sizeof line, f)) {
    if (strncmp(line, "epoch", 5) == 0) continue;
    /* epoch,train_loss,train_accuracy,test_loss,test_accuracy,timings... */
    int commas = 0;
    size_t keep = 0;
    while (line[keep] && commas < 5)
      commas += line[keep++] == ',';
    if (at + keep < sizeof r.rows) {
      memcpy(r.rows + at, line, keep);
      at += keep;
      r.rows[at++] = '\n';
    }
    double v[5] = {0};
    if (sscanf(line, "%lf,%lf,%lf,%lf,%lf", &v[0], &v[1], &v[2], &v[3],
               &v[4]) == 5)
      r.test_accuracy = v[4];
  }
  r.rows[at] = '\0';
  fclose(f);
  return r;
}

START_TEST(one_epoch_fused_unfused_and_determinism) {
  const char *args = "--hidden 100 --batch 256 --epochs 1";
  char unfused_args[256];
  snprintf(unfused_args, sizeof unfused_args, "%s --mode unfused", args);
  run_result fused = run_train(mnist_dir, args, "fused");
  run_result again = run_train(mnist_dir, args, "fused-again");
  run_result unfused = run_train(mnist_dir, unfused_args, "unfused");
  ck_assert_int_eq(fused.code, 0);
  ck_assert_int_eq(again.code, 0);
  ck_assert_int_eq(unfused.code, 0);
  ck_assert_msg(fused.test_accuracy >= 0.95, "fused: %.4f after one epoch",
                fused.test_accuracy);
  ck_assert_msg(unfused.test_accuracy >= 0.95, "unfused: %.4f",
                unfused.test_accuracy);
  ck_assert_msg(fused.test_accuracy - unfused.test_accuracy <= 0.003 &&
                    unfused.test_accuracy - fused.test_accuracy <= 0.003,
                "fused %.4f vs unfused %.4f: more than 0.3 points apart",
                fused.test_accuracy, unfused.test_accuracy);
  ck_assert_msg(fused.rows[0] && strcmp(fused.rows, again.rows) == 0,
                "two identical runs differ:\n%s---\n%s", fused.rows,
                again.rows);
}
END_TEST

/* Every other precision, fused, unfused and auto: one epoch of the seed
 * network lands within 0.3 points of FP32 fused (95.06 % on the H200: one
 * epoch is short of converged, so the comparison, not a fixed threshold,
 * is what can fail). */
START_TEST(every_precision_and_mode_learns) {
  const char *precisions[3] = {"tf32", "bf16", "fp16"};
  const char *modes[3] = {"fused", "unfused", "auto"};
  const char *base = "--hidden 100 --batch 256 --epochs 1";
  run_result fp32 = run_train(mnist_dir, base, "fp32-reference");
  ck_assert_int_eq(fp32.code, 0);
  ck_assert(fp32.test_accuracy >= 0.94);
  for (int m = 0; m < 3; m++) {
    char args[256], label[64];
    snprintf(args, sizeof args, "%s --precision %s --mode %s", base,
             precisions[_i], modes[m]);
    snprintf(label, sizeof label, "%s-%s", precisions[_i], modes[m]);
    run_result r = run_train(mnist_dir, args, label);
    ck_assert_msg(r.code == 0, "%s: exit %d", label, r.code);
    ck_assert_msg(fabs(r.test_accuracy - fp32.test_accuracy) <= 0.003,
                  "%s: %.4f after one epoch, FP32 fused %.4f", label,
                  r.test_accuracy, fp32.test_accuracy);
  }
}
END_TEST

/* GELU hidden layers, fused, unfused and auto, FP32 and BF16: one epoch
 * of the seed network learns (>= 94 %) and the modes agree within 0.3
 * points. */
START_TEST(gelu_learns_in_every_mode) {
  const char *precisions[2] = {"fp32", "bf16"};
  const char *modes[3] = {"fused", "unfused", "auto"};
  double accuracy[3];
  for (int m = 0; m < 3; m++) {
    char args[256], label[64];
    snprintf(args, sizeof args,
             "--hidden 100 --batch 256 --epochs 1 --activation gelu "
             "--precision %s --mode %s",
             precisions[_i], modes[m]);
    snprintf(label, sizeof label, "gelu-%s-%s", precisions[_i], modes[m]);
    run_result r = run_train(mnist_dir, args, label);
    ck_assert_msg(r.code == 0, "%s: exit %d", label, r.code);
    ck_assert_msg(r.test_accuracy >= 0.94, "%s: %.4f after one epoch", label,
                  r.test_accuracy);
    accuracy[m] = r.test_accuracy;
  }
  for (int m = 1; m < 3; m++)
    ck_assert_msg(fabs(accuracy[m] - accuracy[0]) <= 0.003,
                  "gelu %s: %s %.4f vs fused %.4f", precisions[_i], modes[m],
                  accuracy[m], accuracy[0]);
}
END_TEST

START_TEST(graphs_do_not_change_the_numbers) {
  const char *args = "--hidden 100 --batch 96 --epochs 1";
  char no_graphs[256];
  snprintf(no_graphs, sizeof no_graphs, "%s --no-graphs", args);
  run_result graphed = run_train(mnist_dir, args, "graphs");
  run_result launched = run_train(mnist_dir, no_graphs, "no-graphs");
  ck_assert_int_eq(graphed.code, 0);
  ck_assert_int_eq(launched.code, 0);
  ck_assert_msg(strcmp(graphed.rows, launched.rows) == 0,
                "graph replay and host launches differ:\n%s---\n%s",
                graphed.rows, launched.rows);
}
END_TEST

/* A learning rate far too large, held constant: the loss becomes NaN or
 * infinite in the first epoch (measured on the H200 for the default
 * network at lr 100; the 784-100-10 network instead stalls at 10 % with
 * dead units, a finite loss), the run stops with
 * exit 1 and its advice, and the log keeps the rows. (The guard itself is
 * tested deterministically in test_trainer.) */
START_TEST(divergence_stops_training) {
  char command[8192], out[8192], log[4300], rows[4096] = "";
  snprintf(log, sizeof log, "%s/diverged.csv", dir);
  snprintf(command, sizeof command,
           "'%s' --data-dir '%s' --epochs 2 --lr 100 "
           "--schedule constant --log '%s' 2>&1",
           MNIST_TRAIN_PATH, mnist_dir, log);
  ck_assert_int_eq(test_capture(command, out, sizeof out), 1);
  ck_assert_msg(strstr(out, "training diverged") &&
                    strstr(out, "--lr (now 100)"),
                "%s", out);
  FILE *f = fopen(log, "r");
  ck_assert_ptr_nonnull(f);
  size_t got = fread(rows, 1, sizeof rows - 1, f);
  rows[got] = '\0';
  fclose(f);
  ck_assert_msg(strstr(rows, "\n1,") &&
                    (strstr(rows, "nan") || strstr(rows, "inf")),
                "%s", rows);
}
END_TEST

/* A device that does not exist: a clear message and exit 1, no crash, and
 * an existing --log file untouched. */
/* Train, save, load and evaluate: the same test accuracy bit for bit (the
 * same count of correct images); a run cut to 3 steps in file order;
 * mnist_predict on the checkpoint. */
START_TEST(checkpoint_round_trip) {
  char command[16384], out[16384], model[4300], short_run[4300];
  snprintf(model, sizeof model, "%s/model.safetensors", dir);
  snprintf(short_run, sizeof short_run, "%s/short.safetensors", dir);
  char args[8192];
  snprintf(args, sizeof args, "--hidden 100 --batch 256 --epochs 1 --save '%s'",
           model);
  run_result trained = run_train(mnist_dir, args, "saved");
  ck_assert_int_eq(trained.code, 0);
  snprintf(command, sizeof command,
           "'%s' --data-dir '%s' --load '%s' --epochs 0 --batch 256 2>&1",
           MNIST_TRAIN_PATH, mnist_dir, model);
  ck_assert_int_eq(test_capture(command, out, sizeof out), 0);
  char want[64];
  snprintf(want, sizeof want, "(%d of 10000)",
           (int)(trained.test_accuracy * 10000 + 0.5));
  ck_assert_msg(strstr(out, want) && strstr(out, "confusion matrix"),
                "expected '%s' in:\n%s", want, out);
  snprintf(command, sizeof command,
           "'%s' --data-dir '%s' --load '%s' --steps 3 --order file --save "
           "'%s' 2>&1",
           MNIST_TRAIN_PATH, mnist_dir, model, short_run);
  ck_assert_int_eq(test_capture(command, out, sizeof out), 0);
  ck_assert_msg(strstr(out, "(3 optimiser steps)"), "%s", out);
  snprintf(command, sizeof command,
           "'%s' --data-dir '%s' --model '%s' --index 7 2>&1",
           MNIST_PREDICT_PATH, mnist_dir, model);
  ck_assert_int_eq(test_capture(command, out, sizeof out), 0);
  ck_assert_msg(strstr(out, "predicted") && strstr(out, "probabilities"), "%s",
                out);
}
END_TEST

/* FP8 (a GPU without FP8 tensor cores must refuse it, naming them): one
 * epoch of the seed network in every mode lands within 0.5
 * points of FP32 fused (FP8's roundoff is 16 times BF16's, which gets
 * 0.3); its checkpoint holds the FP32 master weights and the recipe, and
 * evaluating it again in FP8 (fresh scales: none carried in the file)
 * counts within 20 images of the run's last epoch, also with a recipe
 * flag of its own (issue 28, defect 8: --fp8-fast-accum was refused as
 * "--precision fp32"); mnist_predict names the recipe. */
START_TEST(fp8_learns_and_saves) {
  const char *modes[3] = {"fused", "unfused", "auto"};
  const char *base = "--hidden 100 --batch 256 --epochs 1";
  run_result fp32 = run_train(mnist_dir, base, "fp8-fp32-reference");
  ck_assert_int_eq(fp32.code, 0);
  char model[4300], args[8192], label[64];
  snprintf(model, sizeof model, "%s/fp8.safetensors", dir);
  run_result fused = {0};
  for (int m = 0; m < 3; m++) {
    snprintf(args, sizeof args, "%s --precision fp8 --mode %s%s%s%s", base,
             modes[m], m ? "" : " --save '", m ? "" : model, m ? "" : "'");
    snprintf(label, sizeof label, "fp8-%s", modes[m]);
    run_result r = run_train(mnist_dir, args, label);
    if (m == 0 && r.code != 0) {
      char command[16384], out[16384];
      snprintf(command, sizeof command,
               "'%s' --data-dir '%s' --epochs 1 --precision fp8 2>&1",
               MNIST_TRAIN_PATH, mnist_dir);
      ck_assert_int_ne(test_capture(command, out, sizeof out), 0);
      ck_assert_msg(strstr(out, "has no FP8 tensor cores"),
                    "fp8 exited %d without naming the GPU's lack: %s", r.code,
                    out);
      printf("fp8 refused, as this GPU has no FP8 tensor cores\n");
      return;
    }
    ck_assert_msg(r.code == 0, "%s: exit %d", label, r.code);
    ck_assert_msg(fabs(r.test_accuracy - fp32.test_accuracy) <= 0.005,
                  "%s: %.4f after one epoch, FP32 fused %.4f", label,
                  r.test_accuracy, fp32.test_accuracy);
    if (m == 0) fused = r;
  }
  char command[16384], out[16384];
  snprintf(command, sizeof command,
           "'%s' --data-dir '%s' --load '%s' --epochs 0 2>&1", MNIST_TRAIN_PATH,
           mnist_dir, model);
  ck_assert_int_eq(test_capture(command, out, sizeof out), 0);
  const char *of = strstr(out, " of 10000)");
  const char *open = of;
  while (open && open > out && *open != '(')
    open--;
  int correct = -1;
  ck_assert_msg(of && open && sscanf(open, "(%d of", &correct) == 1, "%s", out);
  ck_assert_msg(strstr(out, "fp8"), "the file's precision, fp8: %s", out);
  int trained = (int)(fused.test_accuracy * 10000 + 0.5);
  ck_assert_msg(abs(correct - trained) <= 20,
                "evaluated again in fp8: %d correct, the run's last epoch %d",
                correct, trained);
  snprintf(command, sizeof command,
           "'%s' --data-dir '%s' --load '%s' --epochs 0 --fp8-fast-accum none "
           "2>&1",
           MNIST_TRAIN_PATH, mnist_dir, model);
  ck_assert_msg(test_capture(command, out, sizeof out) == 0 &&
                    strstr(out, " of 10000)"),
                "--epochs 0 --fp8-fast-accum none: %s", out);
  snprintf(command, sizeof command,
           "'%s' --data-dir '%s' --model '%s' --index 0 2>&1",
           MNIST_PREDICT_PATH, mnist_dir, model);
  ck_assert_int_eq(test_capture(command, out, sizeof out), 0);
  ck_assert_msg(strstr(out, "fp8 hybrid, delayed scaling, fast accumulation "
                            "forward"),
                "mnist_predict does not name the file's recipe: %s", out);
  /* What the casts lost is part of the summary, --quiet too. */
  snprintf(command, sizeof command,
           "'%s' --data-dir '%s' %s --precision fp8 --steps 4 --quiet 2>&1",
           MNIST_TRAIN_PATH, mnist_dir, base);
  ck_assert_int_eq(test_capture(command, out, sizeof out), 0);
  ck_assert_msg(strstr(out, "fp8: ") && strstr(out, " values saturated"),
                "--quiet hides the FP8 saturation counts: %s", out);
}
END_TEST

START_TEST(missing_device_is_named) {
  char command[8192], out[4096] = "", log[4300], content[64] = "";
  snprintf(log, sizeof log, "%s/kept.csv", dir);
  FILE *f = fopen(log, "w");
  ck_assert_ptr_nonnull(f);
  fputs("keep me\n", f);
  fclose(f);
  snprintf(command, sizeof command,
           "'%s' --data-dir '%s' --device 64 --log '%s' 2>&1", MNIST_TRAIN_PATH,
           mnist_dir, log);
  FILE *pipe = popen(command, "r");
  ck_assert_ptr_nonnull(pipe);
  size_t got = fread(out, 1, sizeof out - 1, pipe);
  out[got] = '\0';
  int status = pclose(pipe);
  ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 1, "%s", out);
  ck_assert_msg(strstr(out, "expected a device number") &&
                    strstr(out, "found 64"),
                "%s", out);
  f = fopen(log, "r");
  ck_assert_ptr_nonnull(f);
  ck_assert_ptr_nonnull(fgets(content, sizeof content, f));
  fclose(f);
  ck_assert_str_eq(content, "keep me\n");
}
END_TEST

START_TEST(fashion_mnist_learns) {
  run_result r =
      run_train(fashion_dir, "--hidden 100 --batch 256 --epochs 1", "fashion");
  ck_assert_int_eq(r.code, 0);
  ck_assert_msg(r.test_accuracy >= 0.80, "Fashion-MNIST: %.4f after one epoch",
                r.test_accuracy);
}
END_TEST

int main(void) {
  test_require_gpu("train_e2e");
  char why[1024];
  const char *mnist[] = {MNIST_SOURCE_DIR "/data/mnist",
                         MNIST_SOURCE_DIR "/../shared/data/mnist", NULL};
  const char *fashion[] = {MNIST_SOURCE_DIR "/data/fashion-mnist",
                           MNIST_SOURCE_DIR "/../shared/data/fashion-mnist",
                           NULL};
  mnist_dir = test_find_data("MNIST_DIR", mnist, why, sizeof why);
  if (!mnist_dir) {
    printf("SKIP train_e2e: MNIST %s\n", why);
    return TEST_SKIP;
  }
  fashion_dir = test_find_data("FASHION_MNIST_DIR", fashion, why, sizeof why);
  if (!fashion_dir) printf("Fashion-MNIST not checked: %s\n", why);
  if (test_make_temp_dir(dir, sizeof dir) != 0) return 1;
  Suite *suite = suite_create("train_e2e");
  TCase *tc = tcase_create("train");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, one_epoch_fused_unfused_and_determinism);
  tcase_add_test(tc, graphs_do_not_change_the_numbers);
  tcase_add_test(tc, checkpoint_round_trip);
  tcase_add_loop_test(tc, every_precision_and_mode_learns, 0, 3);
  tcase_add_loop_test(tc, gelu_learns_in_every_mode, 0, 2);
  tcase_add_test(tc, fp8_learns_and_saves);
  tcase_add_test(tc, missing_device_is_named);
  tcase_add_test(tc, divergence_stops_training);
  if (fashion_dir) tcase_add_test(tc, fashion_mnist_learns);
  suite_add_tcase(suite, tc);
  int status = test_run_suite(suite, 1);
  test_remove_dir(dir);
  return status;
}
