/* train_config.c: the defaults and the network of a run (train_config.h). */
#include "train/train_config.h"

#include <math.h>
#include <stdio.h>

#include "layers/mlp.h"
#include "lt/lt_precision.h"

trainer_config trainer_config_defaults(void) {
  trainer_config c = {
      .widths = {MNIST_PIXELS, 1024, 1024, MNIST_CLASSES},
      .depth = 3,
      .batch = 128,
      .epochs = 5,
      .lr = 0.05f,
      .momentum = 0.9f,
      .cosine = 1,
      .seed = 1,
      .mode = MLP_MODE_FUSED,
      .graphs = 1,
      .tune_cache = TUNE_CACHE_USE,
      .tune_apart = 1,
  };
  return c;
}

int trainer_config_set_hidden(trainer_config *c, const int *hidden, int count,
                              char *err, size_t err_size) {
  if (count < 0 || count > MLP_MAX_LAYERS - 1) {
    snprintf(err, err_size, "expected 0 to %d hidden layers, found %d",
             MLP_MAX_LAYERS - 1, count);
    return -1;
  }
  for (int i = 0; i < count; i++)
    if (hidden[i] < 1 || hidden[i] > MLP_MAX_WIDTH) {
      snprintf(err, err_size, "expected hidden widths from 1 to %d, found %d",
               MLP_MAX_WIDTH, hidden[i]);
      return -1;
    }
  c->widths[0] = MNIST_PIXELS;
  for (int i = 0; i < count; i++)
    c->widths[i + 1] = hidden[i];
  c->depth = count + 1;
  c->widths[c->depth] = MNIST_CLASSES;
  return 0;
}

void trainer_config_name(char *out, size_t size, const trainer_config *c) {
  size_t at = 0;
  out[0] = '\0';
  for (int l = 0; l <= c->depth && at < size; l++)
    at += (size_t)snprintf(out + at, size - at, l ? "-%d" : "%d", c->widths[l]);
}

void trainer_config_pixel_transform(float *scale, float *shift,
                                    const mnist_dataset *data) {
  if (*scale <= 0.0f) mnist_pixel_transform(scale, shift, data);
}

void trainer_config_fit_precision(trainer_config *c, gpu_precision precision) {
  if (precision != GPU_PRECISION_FP8) return;
  c->pad_multiple = lt_fp8_pad_multiple(c->pad_units, c->pad_multiple);
  c->pad_units = 1;
}

void trainer_config_network(mlp_options *out, const trainer_config *c,
                            const gpu_options *gpu) {
  trainer_config fitted = *c;
  trainer_config_fit_precision(&fitted, gpu->precision);
  mlp_options options = {.type = lt_precision_dtype(gpu->precision),
                         .activation = fitted.activation,
                         .pad_units = fitted.pad_units,
                         .pad_multiple = fitted.pad_multiple,
                         .loss_scale = fitted.loss_scale,
                         .fp8 = gpu->precision == GPU_PRECISION_FP8,
                         .fp8_recipe = fitted.fp8};
  *out = options;
}

int trainer_config_check(const trainer_config *c, char *err, size_t err_size) {
  if (c->batch >= 1 && c->epochs >= 1 && c->depth >= 1 &&
      c->depth <= MLP_MAX_LAYERS && c->widths[0] == MNIST_PIXELS &&
      c->widths[c->depth] == MNIST_CLASSES)
    return 0;
  snprintf(err, err_size,
           "expected batch >= 1, epochs >= 1 and widths 784-...-10 with 1 to "
           "%d layers",
           MLP_MAX_LAYERS);
  return -1;
}

float trainer_config_lr(const trainer_config *c, double done, double total) {
  return c->cosine ? (float)(c->lr * 0.5 *
                             (1.0 + cos(3.14159265358979 * done / total)))
                   : c->lr;
}

void trainer_config_key(char *out, size_t size, const trainer_config *c,
                        gpu_precision precision, float loss_scale) {
  const fp8_recipe *f = &c->fp8;
  char net[128];
  trainer_config_name(net, sizeof net, c);
  snprintf(out, size,
           "net %s; batch %d; precision %s; mode %s; activation %s; pad %d/%d; "
           "loss scale %g; fp8 %d/%d/%d",
           net, c->batch, gpu_precision_name(precision), mlp_mode_name(c->mode),
           lt_activation_name(c->activation), c->pad_units, c->pad_multiple,
           (double)loss_scale, f->all_e4m3, f->current, (int)f->fast_accum);
}
