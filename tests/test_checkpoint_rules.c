/* test_checkpoint_rules.c: the checkpoint rules every program shares
 * (train/checkpoint_io.h), table-driven: the activation by name, the
 * 784-...-10 widths, the recorded pixel normalisation and the training
 * split's in its place (train/train_config.h), and --load taking them
 * into the run's configuration; the precision by name, and --epochs 0
 * taking the file's batch and precision unless given, the batch capped at
 * the images' count; --load taking the file's mode and padding unless
 * given; what --save records (the epochs that ran, the schedule's span);
 * the test split loaded alone
 * (data/mnist.h: mnist_test_load) with no training file present. Plain C. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/mnist.h"
#include "tests/test_util.h"
#include "train/checkpoint_io.h"
#include "train/train_config.h"

static char dir[4096];

static void setup(void) {
  ck_assert_int_eq(test_make_temp_dir(dir, sizeof dir), 0);
}

static void teardown(void) {
  test_remove_dir(dir);
}

/* A checkpoint of widths[0..depth] with `activation` in its metadata. */
static mlp_checkpoint make(const int *widths, int depth,
                           const char *activation) {
  mlp_checkpoint ck = {0};
  char err[128];
  ck_assert_int_eq(mlp_layout_init(&ck.layout, widths, depth, err, sizeof err),
                   0);
  mlp_checkpoint_meta_init(&ck.meta);
  snprintf(ck.meta.activation, sizeof ck.meta.activation, "%s", activation);
  return ck;
}

static const struct {
  const char *name;
  int ok;
  lt_activation want;
} activations[] = {
    {"", 1, LT_ACTIVATION_RELU}, /* files that do not say: the default */
    {"relu", 1, LT_ACTIVATION_RELU}, {"gelu", 1, LT_ACTIVATION_GELU},
    {"GELU", 0, LT_ACTIVATION_RELU}, {"tanh", 0, LT_ACTIVATION_RELU},
};

START_TEST(activation_by_name) {
  int widths[] = {784, 100, 10};
  mlp_checkpoint ck = make(widths, 2, activations[_i].name);
  lt_activation got = LT_ACTIVATION_GELU;
  char err[512] = "";
  int status =
      checkpoint_io_activation(&got, &ck, "--model", "m.st", err, sizeof err);
  if (activations[_i].ok) {
    ck_assert_int_eq(status, 0);
    ck_assert_int_eq(got, activations[_i].want);
  } else {
    char want[128];
    snprintf(want, sizeof want, "expected relu or gelu, found '%s'",
             activations[_i].name);
    ck_assert_int_eq(status, -1);
    ck_assert_msg(strstr(err, "--model m.st") && strstr(err, want), "%s", err);
  }
}
END_TEST

static const struct {
  const char *name;
  int ok;
  gpu_precision want;
} precisions[] = {
    {"", 1, GPU_PRECISION_FP32}, /* files that do not say: FP32 */
    {"fp32", 1, GPU_PRECISION_FP32}, {"tf32", 1, GPU_PRECISION_TF32},
    {"bf16", 1, GPU_PRECISION_BF16}, {"fp16", 1, GPU_PRECISION_FP16},
    {"fp8", 1, GPU_PRECISION_FP8},   {"BF16", 0, GPU_PRECISION_FP32},
    {"fp64", 0, GPU_PRECISION_FP32},
};

START_TEST(precision_by_name) {
  int widths[] = {784, 100, 10};
  mlp_checkpoint ck = make(widths, 2, "relu");
  snprintf(ck.meta.precision, sizeof ck.meta.precision, "%s",
           precisions[_i].name);
  gpu_precision got = GPU_PRECISION_TF32;
  char err[512] = "";
  int status =
      checkpoint_io_precision(&got, &ck, "--model", "m.st", err, sizeof err);
  ck_assert_int_eq(status, precisions[_i].ok ? 0 : -1);
  if (precisions[_i].ok)
    ck_assert_int_eq(got, precisions[_i].want);
  else
    ck_assert_msg(strstr(err, "--model m.st") && strstr(err, "'precision'") &&
                      strstr(err, "expected fp32, tf32, bf16, fp16 or fp8") &&
                      strstr(err, precisions[_i].name),
                  "%s", err);
}
END_TEST

/* --epochs 0 --load: the file's batch and precision unless given; a file
 * without a batch keeps --batch's default; the batch never exceeds the
 * images evaluated. */
START_TEST(eval_takes_the_files_batch_and_precision) {
  int widths[] = {784, 100, 10};
  mlp_checkpoint ck = make(widths, 2, "relu");
  snprintf(ck.meta.precision, sizeof ck.meta.precision, "bf16");
  ck.meta.batch = 256;
  trainer_config c = trainer_config_defaults();
  gpu_precision p = GPU_PRECISION_FP32;
  const int none[3] = {0, 0, 0};
  char err[512] = "";
  ck_assert_int_eq(checkpoint_io_eval_settings(&c, &p, &ck, 0, 0, none, "f.st",
                                               err, sizeof err),
                   0);
  ck_assert_int_eq(c.batch, 256);
  ck_assert_int_eq(p, GPU_PRECISION_BF16);
  c.batch = 64;
  p = GPU_PRECISION_TF32;
  ck_assert_int_eq(checkpoint_io_eval_settings(&c, &p, &ck, 1, 1, none, "f.st",
                                               err, sizeof err),
                   0);
  ck_assert_int_eq(c.batch, 64);
  ck_assert_int_eq(p, GPU_PRECISION_TF32);
  ck.meta.batch = -1; /* not recorded */
  snprintf(ck.meta.precision, sizeof ck.meta.precision, "fp64");
  ck_assert_int_eq(checkpoint_io_eval_settings(&c, &p, &ck, 0, 0, none, "f.st",
                                               err, sizeof err),
                   -1);
  ck_assert_int_eq(c.batch, 64);
  ck_assert_msg(strstr(err, "--load f.st") && strstr(err, "fp64"), "%s", err);
  ck_assert_int_eq(checkpoint_io_eval_batch(128, 10000), 128);
  ck_assert_int_eq(checkpoint_io_eval_batch(1000000, 10000), 10000);
  ck_assert_int_eq(checkpoint_io_eval_batch(256, 1), 1);
  ck_assert_int_eq(checkpoint_io_eval_batch(0, 0), 1);
}
END_TEST

/* Defect 8 of issue 28: an fp8 file's recipe is evaluated as it trained
 * (--epochs 0, mnist_predict), but for the fields a flag gives; a name
 * that is none of the choices is refused, naming the key and the file. */
START_TEST(eval_takes_the_files_fp8_recipe_but_the_flags) {
  int widths[] = {784, 112, 16};
  mlp_checkpoint ck = make(widths, 2, "relu");
  snprintf(ck.meta.precision, sizeof ck.meta.precision, "fp8");
  snprintf(ck.meta.fp8_format, sizeof ck.meta.fp8_format, "e4m3");
  snprintf(ck.meta.fp8_scaling, sizeof ck.meta.fp8_scaling, "current");
  snprintf(ck.meta.fp8_fast_accum, sizeof ck.meta.fp8_fast_accum, "all");
  trainer_config c = trainer_config_defaults();
  gpu_precision p = GPU_PRECISION_FP32;
  const int none[3] = {0, 0, 0}, fast_given[3] = {0, 0, 1};
  char err[512] = "";
  ck_assert_int_eq(checkpoint_io_eval_settings(&c, &p, &ck, 0, 0, none, "f.st",
                                               err, sizeof err),
                   0);
  ck_assert_int_eq(p, GPU_PRECISION_FP8);
  ck_assert_int_eq(c.fp8.all_e4m3, 1);
  ck_assert_int_eq(c.fp8.current, 1);
  ck_assert_int_eq(c.fp8.fast_accum, FP8_FAST_ACCUM_ALL);
  c = trainer_config_defaults();
  c.fp8.fast_accum = FP8_FAST_ACCUM_NONE; /* --fp8-fast-accum none */
  ck_assert_int_eq(checkpoint_io_eval_settings(&c, &p, &ck, 0, 0, fast_given,
                                               "f.st", err, sizeof err),
                   0);
  ck_assert_int_eq(c.fp8.fast_accum, FP8_FAST_ACCUM_NONE);
  ck_assert_int_eq(c.fp8.all_e4m3, 1);
  snprintf(ck.meta.fp8_scaling, sizeof ck.meta.fp8_scaling, "lazy");
  ck_assert_int_eq(checkpoint_io_eval_settings(&c, &p, &ck, 0, 0, none, "f.st",
                                               err, sizeof err),
                   -1);
  ck_assert_msg(strstr(err, "--load f.st") && strstr(err, "'fp8_scaling'") &&
                    strstr(err, "lazy") && strstr(err, "delayed or current"),
                "%s", err);
  /* A file that records no recipe (not fp8, or older) keeps the run's. */
  mlp_checkpoint old = make(widths, 2, "relu");
  fp8_recipe r = {.all_e4m3 = 1, .fast_accum = FP8_FAST_ACCUM_NONE};
  ck_assert_int_eq(checkpoint_io_fp8_recipe(&r, &old, none, "--model", "m.st",
                                            err, sizeof err),
                   0);
  ck_assert(r.all_e4m3 == 1 && r.current == 0 &&
            r.fast_accum == FP8_FAST_ACCUM_NONE);
  mlp_checkpoint_destroy(&old);
  mlp_checkpoint_destroy(&ck);
}
END_TEST

static const struct {
  int widths[4];
  int depth;
  const char *found; /* NULL: accepted */
} width_cases[] = {
    {{784, 100, 10}, 2, NULL},      {{784, 10}, 1, NULL},
    {{784, 64, 32, 10}, 3, NULL},   {{784, 100, 9}, 2, "found 784-100-9"},
    {{100, 10}, 1, "found 100-10"}, {{3, 2}, 1, "found 3-2"},
};

START_TEST(widths_784_to_10) {
  mlp_checkpoint ck = make(width_cases[_i].widths, width_cases[_i].depth, "");
  char err[512] = "";
  int status =
      checkpoint_io_check_widths(&ck, "--load", "w.st", err, sizeof err);
  if (!width_cases[_i].found) {
    ck_assert_int_eq(status, 0);
    return;
  }
  ck_assert_int_eq(status, -1);
  ck_assert_msg(strstr(err, "--load w.st: expected a 784-...-10 network") &&
                    strstr(err, width_cases[_i].found),
                "%s", err);
}
END_TEST

static const struct {
  const char *scale, *shift;
  int status; /* 0 found, 1 not recorded, -1 malformed */
  float want_scale, want_shift;
} transforms[] = {
    {"", "", 1, 0, 0},
    {"0.0127", "-0.4242", 0, 0.0127f, -0.4242f},
    {"1", "0", 0, 1.0f, 0.0f},
    {"0", "0", -1, 0, 0},
    {"-0.5", "0", -1, 0, 0},
    {"abc", "0", -1, 0, 0},
    {"0.5", "", -1, 0, 0},
    {"0.5", "nan", -1, 0, 0},
    {"1e99", "0", -1, 0, 0},
    {"0.5x", "0", -1, 0, 0},
    /* Inputs beyond FP16's 65504 (255 * 1e30), a subnormal scale (which
     * once read as "not > 0"), a shift beyond the range. */
    {"1e30", "0", -1, 0, 0},
    {"300", "0", -1, 0, 0},
    {"1e-45", "0", -1, 0, 0},
    {"0.5", "-70000", -1, 0, 0},
    {"256", "-65000", 0, 256.0f, -65000.0f},
};

START_TEST(pixel_transform_recorded) {
  int widths[] = {784, 10};
  mlp_checkpoint ck = make(widths, 1, "");
  snprintf(ck.meta.pixel_scale, sizeof ck.meta.pixel_scale, "%s",
           transforms[_i].scale);
  snprintf(ck.meta.pixel_shift, sizeof ck.meta.pixel_shift, "%s",
           transforms[_i].shift);
  float scale = -7.0f, shift = -7.0f;
  char err[512] = "";
  int status = checkpoint_io_pixel_transform(&scale, &shift, &ck, "--model",
                                             "p.st", err, sizeof err);
  ck_assert_int_eq(status, transforms[_i].status);
  if (status == 0) {
    ck_assert_float_eq(scale, transforms[_i].want_scale);
    ck_assert_float_eq(shift, transforms[_i].want_shift);
  } else if (status < 0) {
    ck_assert_msg(strstr(err, "--model p.st") && strstr(err, "pixel_scale") &&
                      strstr(err, "expected a normal float > 0") &&
                      strstr(err, "within +-65504") &&
                      strstr(err, transforms[_i].scale),
                  "%s", err);
  }
}
END_TEST

/* The one fallback every program uses (trainer, --epochs 0, predict): a
 * recorded normalisation is kept and the data not read, none recorded
 * (scale 0) takes the training split's. */
START_TEST(pixel_transform_fallback) {
  mnist_dataset data = {.pixel_mean = 0.25f, .pixel_std = 0.5f};
  float scale = 0.125f, shift = -2.0f;
  trainer_config_pixel_transform(&scale, &shift, &data);
  ck_assert_float_eq(scale, 0.125f);
  ck_assert_float_eq(shift, -2.0f);
  float want_scale, want_shift;
  mnist_pixel_transform(&want_scale, &want_shift, &data);
  ck_assert_float_eq(want_scale, 1.0f / (255.0f * 0.5f));
  ck_assert_float_eq(want_shift, -0.5f);
  scale = 0.0f;
  shift = 3.0f;
  trainer_config_pixel_transform(&scale, &shift, &data);
  ck_assert_float_eq(scale, want_scale);
  ck_assert_float_eq(shift, want_shift);
}
END_TEST

/* --load: the file's widths, activation, mode, padding and normalisation
 * become the run's (mode and padding unless given); a file of another
 * activation than --activation is refused. */
START_TEST(load_takes_the_files_settings) {
  int widths[] = {784, 6, 10};
  const checkpoint_io_given none = {0}, activation = {.activation = 1};
  const checkpoint_io_given mode_and_padding = {.mode = 1, .padding = 1};
  mlp_checkpoint ck = make(widths, 2, "gelu");
  snprintf(ck.meta.mode, sizeof ck.meta.mode, "auto");
  snprintf(ck.meta.pad_to, sizeof ck.meta.pad_to, "16");
  snprintf(ck.meta.pixel_scale, sizeof ck.meta.pixel_scale, "0.25");
  snprintf(ck.meta.pixel_shift, sizeof ck.meta.pixel_shift, "-1.5");
  float *slab = calloc(ck.layout.slab_floats, sizeof(float));
  ck_assert_ptr_nonnull(slab);
  char path[4300], err[512] = "";
  snprintf(path, sizeof path, "%s/m.safetensors", dir);
  ck_assert_msg(mlp_checkpoint_save(path, &ck.layout, slab, &ck.meta, err,
                                    sizeof err) == 0,
                "%s", err);
  free(slab);
  trainer_config c = trainer_config_defaults();
  mlp_checkpoint loaded = {0};
  ck_assert_msg(checkpoint_io_load(&loaded, &c, path, none, err, sizeof err) ==
                    0,
                "%s", err);
  ck_assert_int_eq(c.depth, 2);
  ck_assert_int_eq(c.widths[1], 6);
  ck_assert_int_eq(c.activation, LT_ACTIVATION_GELU);
  ck_assert_float_eq(c.pixel_scale, 0.25f);
  ck_assert_float_eq(c.pixel_shift, -1.5f);
  ck_assert_int_eq(c.mode, MLP_MODE_AUTO);
  ck_assert_int_eq(c.pad_units, 1);
  ck_assert_int_eq(c.pad_multiple, 16);
  mlp_checkpoint_destroy(&loaded);
  /* --mode and --pad-units / --pad-to given: theirs stay. */
  trainer_config asked = trainer_config_defaults();
  ck_assert_msg(checkpoint_io_load(&loaded, &asked, path, mode_and_padding, err,
                                   sizeof err) == 0,
                "%s", err);
  ck_assert_int_eq(asked.mode, MLP_MODE_FUSED);
  ck_assert_int_eq(asked.pad_units, 0);
  mlp_checkpoint_destroy(&loaded);
  trainer_config relu = trainer_config_defaults();
  ck_assert_int_eq(
      checkpoint_io_load(&loaded, &relu, path, activation, err, sizeof err),
      -1);
  ck_assert_msg(strstr(err, "expected a network with relu layers") &&
                    strstr(err, "found one trained with gelu"),
                "%s", err);
  ck_assert_ptr_null(loaded.slab);
}
END_TEST

/* What --save records: the epochs that ran (none after --steps 0), the
 * schedule's span apart, the steps, the run's mode and padding. */
START_TEST(save_records_what_ran) {
  trainer_config c = trainer_config_defaults();
  c.mode = MLP_MODE_UNFUSED;
  c.pad_units = 1;
  c.pad_multiple = 32;
  mlp_checkpoint_meta meta;
  checkpoint_io_meta(&meta, &c, GPU_PRECISION_BF16, 0, 0, -1.0, 0.5f, -1.0f);
  ck_assert_int_eq(meta.epochs, 0);
  ck_assert_int_eq(meta.schedule_epochs, 5);
  ck_assert_str_eq(meta.steps, "0");
  ck_assert_str_eq(meta.mode, "unfused");
  ck_assert_str_eq(meta.pad_to, "32");
  ck_assert_str_eq(meta.precision, "bf16");
  checkpoint_io_meta(&meta, &c, GPU_PRECISION_FP32, 2, 700, 97.5, 0.5f, -1.0f);
  ck_assert_int_eq(meta.epochs, 2);
  ck_assert_int_eq(meta.schedule_epochs, 5);
  ck_assert_str_eq(meta.steps, "700");
}
END_TEST

/* The test split alone: loads with no training file in the folder, which
 * the whole data set's load refuses. */
START_TEST(test_split_alone) {
  const char *sub = dir;
  char path[4400];
  ck_assert_int_eq(test_write_tiny_mnist(sub, 5, 3, 0), 0);
  snprintf(path, sizeof path, "%s/train-images-idx3-ubyte", sub);
  ck_assert_int_eq(remove(path), 0);
  snprintf(path, sizeof path, "%s/train-labels-idx1-ubyte", sub);
  ck_assert_int_eq(remove(path), 0);
  mnist_dataset data;
  idx_error err;
  ck_assert_int_ne(mnist_dataset_load(&data, sub, &err), IDX_OK);
  ck_assert_msg(strstr(err.message, "train-images"), "%s", err.message);
  ck_assert_msg(mnist_test_load(&data, sub, &err) == IDX_OK, "%s", err.message);
  ck_assert_int_eq(data.test.count, 3);
  ck_assert_int_eq(data.train.count, 0);
  ck_assert_ptr_null(data.train.images);
  ck_assert_str_eq(data.files[MNIST_TRAIN_IMAGES], "");
  ck_assert_ptr_nonnull(strstr(data.files[MNIST_TEST_IMAGES], "t10k-images"));
  mnist_dataset_destroy(&data);
}
END_TEST

int main(void) {
  Suite *suite = suite_create("checkpoint_rules");
  TCase *tc = tcase_create("rules");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_loop_test(tc, activation_by_name, 0,
                      (int)(sizeof activations / sizeof activations[0]));
  tcase_add_loop_test(tc, widths_784_to_10, 0,
                      (int)(sizeof width_cases / sizeof width_cases[0]));
  tcase_add_loop_test(tc, pixel_transform_recorded, 0,
                      (int)(sizeof transforms / sizeof transforms[0]));
  tcase_add_test(tc, pixel_transform_fallback);
  tcase_add_test(tc, load_takes_the_files_settings);
  tcase_add_loop_test(tc, precision_by_name, 0,
                      (int)(sizeof precisions / sizeof precisions[0]));
  tcase_add_test(tc, eval_takes_the_files_batch_and_precision);
  tcase_add_test(tc, eval_takes_the_files_fp8_recipe_but_the_flags);
  tcase_add_test(tc, test_split_alone);
  tcase_add_test(tc, save_records_what_ran);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 0);
}
