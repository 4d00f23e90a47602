/* mnist_predict.c: a saved network (mnist_train --save) on one image or on
 * the whole test split. With --index N or --image FILE.pgm: the digit
 * drawn in the terminal, the predicted class and the ten probabilities;
 * without: the test accuracy and the most confident mistakes. The
 * checkpoint, the data and the image are read and checked before the GPU
 * is touched. The only other place, with mnist_train and mnist_bench,
 * that exits. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/cli_flags.h"
#include "checkpoint/mlp_checkpoint.h"
#include "data/pgm.h"
#include "gpu/gpu_arch_check.h"
#include "train/checkpoint_io.h"
#include "train/data_source.h"
#include "train/trainer.h"

#ifndef MNIST_SOURCE_DIR
#define MNIST_SOURCE_DIR "."
#endif

typedef struct predict_options {
  const char *model, *data_dir, *image;
  int index; /* -1: none */
  int mistakes;
  int device;
  int help;
} predict_options;

static void usage(FILE *out) {
  fprintf(out,
          "usage: mnist_predict --model FILE [--data-dir DIR]\n"
          "                     [--index N | --image FILE.pgm] [--mistakes K]\n"
          "                     [--device N]\n"
          "Runs a network saved by mnist_train --save. With --index N (a test\n"
          "image) or --image FILE (a 28x28 8-bit PGM, white digit on black as\n"
          "in MNIST): the digit drawn, the predicted class and the ten\n"
          "probabilities. Without either: the test accuracy and the K most\n"
          "confident mistakes (default 10).\n");
}

static int parse(predict_options *o, int argc, char **argv, char *err,
                 size_t size) {
  memset(o, 0, sizeof *o);
  o->index = -1;
  o->mistakes = 10;
  const cli_flag flags[] = {
      {.name = "model", .kind = CLI_STRING, .target = &o->model},
      {.name = "data-dir", .kind = CLI_STRING, .target = &o->data_dir},
      {.name = "image", .kind = CLI_STRING, .target = &o->image},
      {.name = "index", .kind = CLI_INT, .target = &o->index, .high = 1e9},
      {.name = "mistakes",
       .kind = CLI_INT,
       .target = &o->mistakes,
       .high = 10000},
      {.name = "device", .kind = CLI_INT, .target = &o->device, .high = 1023},
      {.name = "help",
       .kind = CLI_SWITCH,
       .target = &o->help,
       .switch_value = 1},
  };
  if (cli_parse(flags, (int)(sizeof flags / sizeof flags[0]), argc, argv, err,
                size) != 0)
    return -1;
  if (!o->help && !o->model)
    snprintf(err, size, "expected --model FILE, found none");
  else if (o->image && o->index >= 0)
    snprintf(err, size, "expected --index or --image, found both");
  else
    return 0;
  return -1;
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

static int run(const predict_options *o, mnist_dataset *data,
               const mlp_checkpoint *ck) {
  gpu_options g = gpu_options_defaults();
  g.device = o->device;
  trainer_config c = trainer_config_defaults();
  c.depth = ck->layout.depth;
  memcpy(c.widths, ck->layout.widths, sizeof c.widths);
  c.activation = strcmp(ck->meta.activation, "gelu") == 0 ? LT_ACTIVATION_GELU
                                                          : LT_ACTIVATION_RELU;
  c.batch = 1000;
  c.epochs = 1;
  gpu_context *ctx = NULL;
  trainer *t = NULL;
  int n = data->test.count, status = -1;
  int *pred = malloc((size_t)n * sizeof(int));
  float *prob = malloc((size_t)n * MNIST_CLASSES * sizeof(float));
  if (pred && prob && gpu_context_create(&ctx, &g) == 0 &&
      trainer_create(&t, ctx, data, &c) == 0 &&
      checkpoint_io_apply(t, ck) == 0 &&
      trainer_predict_test(t, pred, prob) == 0)
    status = 0;
  if (status == 0 && (o->image || o->index >= 0)) {
    int j = o->image ? 0 : o->index;
    show_one(data->test.images + (size_t)j * MNIST_PIXELS,
             o->image ? -1 : data->test.labels[j], pred + j,
             prob + (size_t)j * MNIST_CLASSES);
  } else if (status == 0) {
    show_mistakes(data, pred, prob, o->mistakes);
  }
  trainer_destroy(t);
  gpu_context_destroy(ctx);
  free(pred);
  free(prob);
  return status;
}

int main(int argc, char **argv) {
  predict_options o;
  char err[512], dir[4096], why[512];
  if (parse(&o, argc, argv, err, sizeof err) != 0) {
    fprintf(stderr, "mnist_predict: %s\n\n", err);
    usage(stderr);
    return 2;
  }
  if (o.help) {
    usage(stdout);
    return 0;
  }
  mlp_checkpoint ck = {0};
  uint8_t image[MNIST_PIXELS];
  if (mlp_checkpoint_load(o.model, NULL, 0, &ck, err, sizeof err) != 0 ||
      (o.image && pgm_read(image, o.image, err, sizeof err) != 0)) {
    fprintf(stderr, "mnist_predict: %s\n", err);
    mlp_checkpoint_destroy(&ck);
    return 1;
  }
  mnist_dataset data;
  if (data_source_load(&data, dir, sizeof dir, o.data_dir, MNIST_SOURCE_DIR,
                       "mnist_predict") != 0) {
    mlp_checkpoint_destroy(&ck);
    return 1;
  }
  int status = 1;
  char widths[256];
  mlp_checkpoint_widths_text(widths, sizeof widths, ck.layout.widths,
                             ck.layout.depth);
  if (ck.layout.widths[0] != MNIST_PIXELS ||
      ck.layout.widths[ck.layout.depth] != MNIST_CLASSES)
    fprintf(stderr,
            "mnist_predict: %s: expected a 784-...-10 network, found %s\n",
            o.model, widths);
  else if (o.index >= data.test.count)
    fprintf(stderr, "mnist_predict: --index: expected 0 to %d, found %d\n",
            data.test.count - 1, o.index);
  else if (!gpu_device_available(why, sizeof why))
    fprintf(stderr, "mnist_predict: needs a CUDA GPU: %s\n", why);
  else if (gpu_precision_check_device(why, sizeof why, o.device,
                                      gpu_options_defaults().precision) < 0) {
    fprintf(stderr, "mnist_predict: %s\n", why);
    status = 2;
  } else {
    /* The image takes test image 0's place. */
    if (o.image) memcpy(data.test.images, image, MNIST_PIXELS);
    status = run(&o, &data, &ck) == 0 ? 0 : 1;
  }
  mnist_dataset_destroy(&data);
  mlp_checkpoint_destroy(&ck);
  return status;
}
