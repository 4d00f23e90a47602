/* mnist_predict.c: a saved network (mnist_train --save) on one image or on
 * the whole test split, run by an inference-only network
 * (train/inference.h: no trainer, no training data on the GPU) with the
 * checkpoint's own pixel normalisation. With --index N or --image
 * FILE.pgm: the digit drawn in the terminal, the predicted class and the
 * ten probabilities; without: the test accuracy and the most confident
 * mistakes. It runs in the checkpoint's precision (--precision overrides;
 * an fp8 file's recipe too: --fp8-format, --fp8-scaling, --fp8-fast-accum
 * override it) and in fused mode (--mode), in the checkpoint's batch
 * capped at the
 * images' count. It first prints what the checkpoint records of its run
 * (mlp_checkpoint_meta_describe: widths, activation, precision, mode,
 * padding, epochs, batch, test accuracy). --image reads no MNIST file; the
 * others read the test split only. The checkpoint, the data and the image are
 * read and checked before the GPU is touched. The only other place, with
 * mnist_train and mnist_bench, that exits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/cli_flags.h"
#include "app/flag_choices.h"
#include "app/gpu_start_check.h"
#include "checkpoint/mlp_checkpoint.h"
#include "data/pgm.h"
#include "train/checkpoint_io.h"
#include "train/data_source.h"
#include "train/inference.h"

#ifndef MNIST_SOURCE_DIR
#define MNIST_SOURCE_DIR "."
#endif

typedef struct predict_options {
  const char *model, *data_dir, *image;
  int index; /* -1: none */
  int mistakes;
  int mistakes_given; /* --mistakes was given (refused with one image) */
  int device;
  int precision;    /* gpu_precision; -1: the checkpoint's */
  fp8_recipe fp8;   /* --fp8-*: the fields given; the rest the file's */
  int fp8_given[3]; /* --fp8-format, --fp8-scaling, --fp8-fast-accum */
  mlp_mode mode;    /* --mode, default fused */
  int help;
  int check_flags; /* parse, say what would run, exit: no data, no GPU */
} predict_options;

static void usage(FILE *out) {
  fprintf(out,
          "usage: mnist_predict --model FILE [--data-dir DIR]\n"
          "                     [--index N | --image FILE.pgm] [--mistakes K]\n"
          "                     [--precision P] [--mode MODE] [--device N]\n"
          "                     [--fp8-format F] [--fp8-scaling S]\n"
          "                     [--fp8-fast-accum G] [--check-flags]\n"
          "Runs a network saved by mnist_train --save, with the pixel\n"
          "normalisation the file records, in the file's precision (fp32\n"
          "for files that do not say; --precision fp32, tf32, bf16, fp16 or\n"
          "fp8 overrides it; with fp8 the file's recipe, which --fp8-format\n"
          "hybrid|e4m3, --fp8-scaling delayed|current and --fp8-fast-accum\n"
          "forward|all|none override) and mode (--mode fused, unfused or\n"
          "auto; default fused), in batches of the file's batch (at most the\n"
          "number of images). With --index N (a test image) or\n"
          "--image FILE (a 28x28 8-bit PGM, white digit on black as in\n"
          "MNIST): the digit drawn, the predicted class and the ten\n"
          "probabilities. Without either: the test accuracy and the K most\n"
          "confident mistakes (default 10; not with --index or --image).\n"
          "Data needed: --image none; --index and the test accuracy the test\n"
          "split only (t10k files in --data-dir, $MNIST_DIR or data/mnist);\n"
          "a file that records no normalisation (older) also the training\n"
          "split, to compute it.\n"
          "--check-flags: check the other flags, say what would run and\n"
          "exit (0 when they parse); reads no file, needs no GPU.\n");
}

static void store_precision(void *target, int index) {
  *(int *)target = gpu_precision_parse(flag_precision_names()[index]);
}

static int parse(predict_options *o, int argc, char **argv, char *err,
                 size_t size) {
  memset(o, 0, sizeof *o);
  o->index = -1;
  o->precision = -1;
  o->mode = MLP_MODE_FUSED;
  o->mistakes = 10;
  const cli_flag flags[] = {
      {.name = "model", .kind = CLI_STRING, .target = &o->model},
      {.name = "data-dir", .kind = CLI_STRING, .target = &o->data_dir},
      {.name = "image", .kind = CLI_STRING, .target = &o->image},
      {.name = "index", .kind = CLI_INT, .target = &o->index, .high = 1e9},
      {.name = "mistakes",
       .kind = CLI_INT,
       .target = &o->mistakes,
       .high = 10000,
       .given = &o->mistakes_given},
      {.name = "device", .kind = CLI_INT, .target = &o->device, .high = 1023},
      {.name = "precision",
       .kind = CLI_CHOICE,
       .target = &o->precision,
       .choices = flag_precision_names(),
       .store = store_precision},
      {.name = "mode",
       .kind = CLI_CHOICE,
       .target = &o->mode,
       .choices = flag_mode_names(),
       .store = flag_store_mode},
      flag_fp8(FP8_RECIPE_FORMAT, &o->fp8, &o->fp8_given[0]),
      flag_fp8(FP8_RECIPE_SCALING, &o->fp8, &o->fp8_given[1]),
      flag_fp8(FP8_RECIPE_FAST_ACCUM, &o->fp8, &o->fp8_given[2]),
      {.name = "help",
       .kind = CLI_SWITCH,
       .target = &o->help,
       .switch_value = 1},
      {.name = "check-flags",
       .kind = CLI_SWITCH,
       .target = &o->check_flags,
       .switch_value = 1},
  };
  if (cli_parse(flags, (int)(sizeof flags / sizeof flags[0]), argc, argv, err,
                size) != 0)
    return -1;
  if (!o->help && !o->model)
    snprintf(err, size, "expected --model FILE, found none");
  else if (o->image && o->index >= 0)
    snprintf(err, size, "expected --index or --image, found both");
  else if (o->mistakes_given && (o->image || o->index >= 0))
    snprintf(err, size,
             "--mistakes lists the test split's mistakes: expected it "
             "without %s, found both",
             o->image ? "--image" : "--index");
  else if (o->precision >= 0 && o->precision != GPU_PRECISION_FP8 &&
           (o->fp8_given[0] || o->fp8_given[1] || o->fp8_given[2]))
    snprintf(err, size,
             "--fp8-format, --fp8-scaling and --fp8-fast-accum apply to "
             "--precision fp8 only, found --precision %s",
             gpu_precision_name((gpu_precision)o->precision));
  else
    return 0;
  return -1;
}

/* What a run with these options would do, in one line (--check-flags). */
static void describe(FILE *out, const predict_options *o) {
  const char *data = o->data_dir ? o->data_dir : "$MNIST_DIR, else data/mnist";
  fprintf(out, "mnist_predict: flags ok: would run %s on ", o->model);
  if (o->image)
    fprintf(out,
            "the image %s; reads no MNIST file, unless %s records no pixel "
            "normalisation (then the training split from %s)",
            o->image, o->model, data);
  else if (o->index >= 0)
    fprintf(out, "test image %d; reads the test split from %s", o->index, data);
  else
    fprintf(out,
            "the test split (accuracy, the %d most confident mistakes); "
            "reads it from %s",
            o->mistakes, data);
  fprintf(out, "; %s, %s mode; device %d\n",
          o->precision >= 0 ? gpu_precision_name((gpu_precision)o->precision)
                            : "the checkpoint's precision",
          mlp_mode_name(o->mode), o->device);
}

/* The image as shades, two characters per pixel. */
static void draw(const uint8_t *pixels) {
  static const char shades[] = " .:-=+*#%@";
  for (int r = 0; r < PGM_SIDE; r++) {
    for (int c = 0; c < PGM_SIDE; c++) {
      char ch = shades[pixels[r * PGM_SIDE + c] * 9 / 255];
      putchar(ch);
      putchar(ch);
    }
    putchar('\n');
  }
}

static void show_one(const uint8_t *pixels, int label, const int *pred,
                     const float *prob) {
  draw(pixels);
  printf("predicted %d", pred[0]);
  if (label >= 0) printf(" (label %d)", label);
  printf("\nprobabilities:");
  for (int c = 0; c < MNIST_CLASSES; c++)
    printf(" %d: %.4f", c, prob[c]);
  printf("\n");
}

/* The test accuracy and the `k` mistakes made with the highest
 * probability. */
static void show_mistakes(const mnist_dataset *data, const int *pred,
                          const float *prob, int k) {
  int n = data->test.count, correct = 0;
  for (int j = 0; j < n; j++)
    correct += pred[j] == data->test.labels[j];
  printf("test accuracy %.2f%% (%d of %d); the most confident mistakes:\n",
         100.0 * correct / n, correct, n);
  printf("%7s %6s %10s %12s\n", "index", "label", "predicted", "probability");
  char *shown = calloc((size_t)n, 1);
  for (int m = 0; m < k && shown; m++) {
    int best = -1;
    for (int j = 0; j < n; j++)
      if (!shown[j] && pred[j] != data->test.labels[j] &&
          (best < 0 || prob[(size_t)j * MNIST_CLASSES + pred[j]] >
                           prob[(size_t)best * MNIST_CLASSES + pred[best]]))
        best = j;
    if (best < 0) break;
    shown[best] = 1;
    printf("%7d %6d %10d %12.4f\n", best, data->test.labels[best], pred[best],
           prob[(size_t)best * MNIST_CLASSES + pred[best]]);
  }
  free(shown);
}

/* The images the run covers: the PGM alone (label 0, not shown), or the
 * test split. */
static mnist_split images_of(const predict_options *o,
                             const mnist_dataset *data, uint8_t *image,
                             uint8_t *label) {
  if (!o->image) return data->test;
  mnist_split one = {.count = 1, .images = image, .labels = label};
  return one;
}

static int run(const predict_options *o, const mnist_dataset *data,
               uint8_t *image, const mlp_checkpoint *ck,
               const trainer_config *net_config, gpu_precision precision,
               float scale, float shift) {
  gpu_options g = gpu_options_defaults();
  g.device = o->device;
  g.precision = precision;
  uint8_t label = 0;
  mnist_split split = images_of(o, data, image, &label);
  /* The training run's batch when the file records it, so the test
   * split's numbers are the training log's (the same GEMM shapes), capped
   * at the images' count: a file's claim never sizes an allocation. */
  int batch = checkpoint_io_eval_batch(
      ck->meta.batch >= 1 ? ck->meta.batch : 1000, split.count);
  gpu_context *ctx = NULL;
  mlp *net = NULL;
  int n = split.count, status = -1;
  inference_totals totals;
  int *pred = malloc((size_t)n * sizeof(int));
  float *prob = malloc((size_t)n * MNIST_CLASSES * sizeof(float));
  if (pred && prob && gpu_context_create(&ctx, &g) == 0) {
    mlp_options options; /* FP8's rule for m and k included */
    trainer_config_network(&options, net_config, &g);
    if (inference_network_create(&net, ctx, ck, &options, batch) == 0 &&
        inference_run(&totals, pred, prob, net, ctx, o->mode, &split, batch,
                      scale, shift) == 0)
      status = 0;
  }
  if (status == 0 && (o->image || o->index >= 0)) {
    int j = o->image ? 0 : o->index;
    show_one(split.images + (size_t)j * MNIST_PIXELS,
             o->image ? -1 : split.labels[j], pred + j,
             prob + (size_t)j * MNIST_CLASSES);
  } else if (status == 0) {
    show_mistakes(data, pred, prob, o->mistakes);
  }
  mlp_destroy(net);
  gpu_context_destroy(ctx);
  free(pred);
  free(prob);
  return status;
}

/* 0 when no --fp8-* flag was given or the run is fp8 (the file's
 * precision, or --precision's), else -1 with `err`. */
static int fp8_flags_fit(const predict_options *o, gpu_precision precision,
                         char *err, size_t size) {
  if (precision == GPU_PRECISION_FP8 ||
      !(o->fp8_given[0] || o->fp8_given[1] || o->fp8_given[2]))
    return 0;
  snprintf(err, size,
           "--fp8-format, --fp8-scaling and --fp8-fast-accum apply to an fp8 "
           "run only, found %s's precision %s",
           o->model, gpu_precision_name(precision));
  return -1;
}

/* Reads and checks the checkpoint (784-...-10, its activation, its pixel
 * normalisation: *transform 0 when recorded, 1 when not; an fp8 run's
 * recipe where no flag gives it) and the image (--image). Returns 0, or
 * -1 with `err`. */
static int read_inputs(mlp_checkpoint *ck, trainer_config *net_config,
                       gpu_precision *precision, float *scale, float *shift,
                       int *transform, uint8_t *image, const predict_options *o,
                       char *err, size_t size) {
  *net_config = trainer_config_defaults(); /* unpadded */
  net_config->fp8 = o->fp8;
  *precision = (gpu_precision)o->precision;
  if (mlp_checkpoint_load(o->model, NULL, 0, ck, err, size) != 0 ||
      (o->precision < 0 && checkpoint_io_precision(precision, ck, "--model",
                                                   o->model, err, size) != 0) ||
      fp8_flags_fit(o, *precision, err, size) != 0 ||
      checkpoint_io_fp8_recipe(&net_config->fp8, ck, o->fp8_given, "--model",
                               o->model, err, size) != 0 ||
      checkpoint_io_check_widths(ck, "--model", o->model, err, size) != 0 ||
      checkpoint_io_activation(&net_config->activation, ck, "--model", o->model,
                               err, size) != 0 ||
      (*transform = checkpoint_io_pixel_transform(scale, shift, ck, "--model",
                                                  o->model, err, size)) < 0)
    return -1;
  idx_error image_err;
  if (o->image && pgm_read(image, o->image, &image_err) != IDX_OK) {
    snprintf(err, size, "--image %.*s", (int)(size > 9 ? size - 9 : 0),
             image_err.message);
    return -1;
  }
  return 0;
}

int main(int argc, char **argv) {
  predict_options o;
  char err[512], dir[4096];
  if (parse(&o, argc, argv, err, sizeof err) != 0) {
    cli_report_bad_flags(stderr, "mnist_predict", err);
    return 2;
  }
  if (o.help) {
    usage(stdout);
    return 0;
  }
  if (o.check_flags) {
    describe(stdout, &o);
    return 0;
  }
  mlp_checkpoint ck = {0};
  trainer_config net_config;
  uint8_t image[MNIST_PIXELS];
  float scale = 0.0f, shift = 0.0f;
  int transform = 1;
  gpu_precision precision = GPU_PRECISION_FP32;
  if (read_inputs(&ck, &net_config, &precision, &scale, &shift, &transform,
                  image, &o, err, sizeof err) != 0) {
    fprintf(stderr, "mnist_predict: %s\n", err);
    mlp_checkpoint_destroy(&ck);
    return 1;
  }
  /* A checkpoint that records its normalisation needs no training split
   * (and --image no data at all); an older one takes the training
   * split's, as its run did. */
  mnist_dataset data = {0};
  int need_data = !o.image || transform != 0;
  char why_data[1200];
  if (need_data &&
      data_source_load(&data, dir, sizeof dir, o.data_dir, MNIST_SOURCE_DIR,
                       transform == 0, why_data, sizeof why_data) != 0) {
    fprintf(stderr, "mnist_predict: %s\n", why_data);
    mlp_checkpoint_destroy(&ck);
    return 1;
  }
  trainer_config_pixel_transform(&scale, &shift, &data);
  int status = 1;
  int bad_index = !o.image && o.index >= data.test.count;
  gpu_start_check check;
  gpu_start_check_init(
      &check, o.device, precision,
      lt_run_epilogues(net_config.activation, 0, mlp_mode_ways(o.mode)));
  if (!bad_index) gpu_start_check_run(&check);
  if (bad_index)
    fprintf(stderr, "mnist_predict: --index: expected 0 to %d, found %d\n",
            data.test.count - 1, o.index);
  else if (!check.available)
    fprintf(stderr, "mnist_predict: needs a CUDA GPU: %s\n", check.why);
  else if (check.verdict < 0) {
    fprintf(stderr, "mnist_predict: %s\n", check.why);
    status = 2;
  } else {
    if (check.why[0]) fprintf(stderr, "mnist_predict: note: %s\n", check.why);
    char trained[512];
    mlp_checkpoint_meta_describe(trained, sizeof trained, &ck.meta);
    if (trained[0]) printf("mnist_predict: %s: %s\n", o.model, trained);
    status =
        run(&o, &data, image, &ck, &net_config, precision, scale, shift) == 0
            ? 0
            : 1;
  }
  mnist_dataset_destroy(&data);
  mlp_checkpoint_destroy(&ck);
  return status;
}
