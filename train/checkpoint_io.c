/* checkpoint_io.c: see checkpoint_io.h. */
#include "train/checkpoint_io.h"

#include "checkpoint/write_target.h"
#include "data/mnist.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef MNIST_VERSION
#define MNIST_VERSION "mnist-epilogs"
#endif

int checkpoint_io_check_target(const char *path, char *err, size_t err_size) {
  return write_target_check("--save", path, err, err_size);
}

int checkpoint_io_check_widths(const mlp_checkpoint *checkpoint,
                               const char *flag, const char *path, char *err,
                               size_t err_size) {
  const mlp_layout *lay = &checkpoint->layout;
  if (lay->widths[0] == MNIST_PIXELS &&
      lay->widths[lay->depth] == MNIST_CLASSES)
    return 0;
  char widths[256];
  mlp_checkpoint_widths_text(widths, sizeof widths, lay->widths, lay->depth);
  snprintf(err, err_size, "%s %s: expected a 784-...-10 network, found %s",
           flag, path, widths);
  return -1;
}

int checkpoint_io_activation(lt_activation *out,
                             const mlp_checkpoint *checkpoint, const char *flag,
                             const char *path, char *err, size_t err_size) {
  const lt_activation known[] = {LT_ACTIVATION_RELU, LT_ACTIVATION_GELU};
  const char *found = checkpoint->meta.activation;
  *out = LT_ACTIVATION_RELU;
  if (!found[0]) return 0;
  for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
    if (strcmp(found, lt_activation_name(known[i])) == 0) {
      *out = known[i];
      return 0;
    }
  snprintf(err, err_size,
           "%s %s: metadata 'activation': expected relu or gelu, found '%s'",
           flag, path, found);
  return -1;
}

int checkpoint_io_precision(gpu_precision *out,
                            const mlp_checkpoint *checkpoint, const char *flag,
                            const char *path, char *err, size_t err_size) {
  const char *found = checkpoint->meta.precision;
  int value = found[0] ? gpu_precision_parse(found) : GPU_PRECISION_FP32;
  if (value < 0) {
    char names[96];
    size_t at = 0;
    for (int p = 0; p < GPU_PRECISION_COUNT && at < sizeof names; p++)
      at += (size_t)snprintf(names + at, sizeof names - at, "%s%s",
                             p == 0                         ? ""
                             : p == GPU_PRECISION_COUNT - 1 ? " or "
                                                            : ", ",
                             gpu_precision_name((gpu_precision)p));
    snprintf(err, err_size,
             "%s %s: metadata 'precision': expected %s, found '%s'", flag, path,
             names, found);
    return -1;
  }
  *out = (gpu_precision)value;
  return 0;
}

int checkpoint_io_fp8_recipe(fp8_recipe *recipe,
                             const mlp_checkpoint *checkpoint,
                             const int given[3], const char *flag,
                             const char *path, char *err, size_t err_size) {
  const mlp_checkpoint_meta *m = &checkpoint->meta;
  const char *names[3] = {given[0] ? NULL : m->fp8_format,
                          given[1] ? NULL : m->fp8_scaling,
                          given[2] ? NULL : m->fp8_fast_accum};
  char why[256];
  if (fp8_recipe_from_names(recipe, names, why, sizeof why) == 0) return 0;
  snprintf(err, err_size, "%s %s: metadata %s", flag, path, why);
  return -1;
}

int checkpoint_io_eval_settings(trainer_config *c, gpu_precision *precision,
                                const mlp_checkpoint *checkpoint,
                                int batch_given, int precision_given,
                                const int fp8_given[3], const char *path,
                                char *err, size_t err_size) {
  if (!batch_given && checkpoint->meta.batch >= 1)
    c->batch = checkpoint->meta.batch;
  if (checkpoint_io_fp8_recipe(&c->fp8, checkpoint, fp8_given, "--load", path,
                               err, err_size) != 0)
    return -1;
  if (precision_given) return 0;
  return checkpoint_io_precision(precision, checkpoint, "--load", path, err,
                                 err_size);
}

int checkpoint_io_eval_batch(int batch, int count) {
  int capped = batch < count ? batch : count;
  return capped >= 1 ? capped : 1;
}

/* 0 with *value when `text` is a whole number that is finite and, unless
 * exactly 0, normal as a float (no overflow to inf, no subnormal). */
static int parse_float(float *value, const char *text) {
  char *end = NULL;
  errno = 0;
  double wide = strtod(text, &end);
  float v = (float)wide;
  if (end == text || *end != '\0' || !isfinite(wide) || !isfinite(v) ||
      (wide != 0.0 && !isnormal(v)))
    return -1;
  *value = v;
  return 0;
}

int checkpoint_io_pixel_transform(float *scale, float *shift,
                                  const mlp_checkpoint *checkpoint,
                                  const char *flag, const char *path, char *err,
                                  size_t err_size) {
  const mlp_checkpoint_meta *m = &checkpoint->meta;
  if (!m->pixel_scale[0] && !m->pixel_shift[0]) return 1;
  float s = 0.0f, t = 0.0f;
  int numbers = parse_float(&s, m->pixel_scale) == 0 && s > 0.0f &&
                parse_float(&t, m->pixel_shift) == 0;
  /* Every pixel (0 to 255) maps inside FP16's range: the inputs of every
   * precision stay finite. */
  if (!numbers || fabs(t) > CHECKPOINT_IO_MAX_INPUT ||
      fabs(255.0 * s + t) > CHECKPOINT_IO_MAX_INPUT) {
    snprintf(err, err_size,
             "%s %s: metadata 'pixel_scale', 'pixel_shift': expected a normal "
             "float > 0 and a number, mapping pixels 0 to 255 within +-%g, "
             "found '%s' and '%s'",
             flag, path, CHECKPOINT_IO_MAX_INPUT, m->pixel_scale,
             m->pixel_shift);
    return -1;
  }
  *scale = s;
  *shift = t;
  return 0;
}

/* The file's mode and padding ("" unknown: kept as c has them); the
 * reader checked that the names are the program's. */
static void take_mode_and_padding(trainer_config *c,
                                  const mlp_checkpoint_meta *meta,
                                  checkpoint_io_given given) {
  const mlp_mode modes[] = {MLP_MODE_FUSED, MLP_MODE_UNFUSED, MLP_MODE_AUTO};
  for (size_t m = 0; !given.mode && m < sizeof modes / sizeof modes[0]; m++)
    if (strcmp(meta->mode, mlp_mode_name(modes[m])) == 0) c->mode = modes[m];
  if (given.padding || !meta->pad_to[0]) return;
  c->pad_units = strcmp(meta->pad_to, "none") != 0;
  c->pad_multiple = c->pad_units ? atoi(meta->pad_to) : 0;
}

int checkpoint_io_load(mlp_checkpoint *out, trainer_config *c, const char *path,
                       checkpoint_io_given given, char *err, size_t err_size) {
  if (mlp_checkpoint_load(path, given.hidden ? c->widths : NULL, c->depth, out,
                          err, err_size) != 0)
    return -1;
  lt_activation found = LT_ACTIVATION_RELU;
  float scale = 0.0f, shift = 0.0f;
  int transform = 1;
  if (checkpoint_io_check_widths(out, "--load", path, err, err_size) != 0 ||
      checkpoint_io_activation(&found, out, "--load", path, err, err_size) !=
          0 ||
      (transform = checkpoint_io_pixel_transform(&scale, &shift, out, "--load",
                                                 path, err, err_size)) < 0) {
    mlp_checkpoint_destroy(out);
    return -1;
  }
  /* A file that names no activation agrees with any --activation. */
  if (out->meta.activation[0] && given.activation && found != c->activation) {
    snprintf(err, err_size,
             "--load %s: expected a network with %s layers (--activation), "
             "found one trained with %s",
             path, lt_activation_name(c->activation), out->meta.activation);
    mlp_checkpoint_destroy(out);
    return -1;
  }
  if (out->meta.activation[0] && !given.activation) c->activation = found;
  take_mode_and_padding(c, &out->meta, given);
  if (transform == 0) {
    c->pixel_scale = scale;
    c->pixel_shift = shift;
  }
  c->depth = out->layout.depth;
  memcpy(c->widths, out->layout.widths, sizeof c->widths);
  return 0;
}

/* "%.9g" of a float: what reads back as the same float. */
static void float_text(char *out, double value) {
  snprintf(out, MLP_CHECKPOINT_TEXT, "%.9g", value);
}

void checkpoint_io_meta(mlp_checkpoint_meta *out, const trainer_config *c,
                        gpu_precision precision, int epochs_run, int steps,
                        double test_accuracy, float scale, float shift) {
  mlp_checkpoint_meta_init(out);
  snprintf(out->activation, sizeof out->activation, "%s",
           lt_activation_name(c->activation));
  snprintf(out->precision, sizeof out->precision, "%s",
           gpu_precision_name(precision));
  snprintf(out->version, sizeof out->version, "%s", MNIST_VERSION);
  snprintf(out->schedule, sizeof out->schedule, "%s",
           c->cosine ? "cosine" : "constant");
  snprintf(out->order, sizeof out->order, "%s",
           c->file_order ? "file" : "shuffle");
  snprintf(out->steps, sizeof out->steps, "%d", steps);
  snprintf(out->mode, sizeof out->mode, "%s", mlp_mode_name(c->mode));
  if (precision == GPU_PRECISION_FP8) {
    const char *names[3];
    fp8_recipe_names(&c->fp8, names);
    snprintf(out->fp8_format, sizeof out->fp8_format, "%s", names[0]);
    snprintf(out->fp8_scaling, sizeof out->fp8_scaling, "%s", names[1]);
    snprintf(out->fp8_fast_accum, sizeof out->fp8_fast_accum, "%s", names[2]);
  }
  if (c->pad_units)
    snprintf(out->pad_to, sizeof out->pad_to, "%d",
             c->pad_multiple > 0 ? c->pad_multiple : 8);
  else
    snprintf(out->pad_to, sizeof out->pad_to, "none");
  float_text(out->lr, c->lr);
  float_text(out->momentum, c->momentum);
  float_text(out->pixel_scale, scale);
  float_text(out->pixel_shift, shift);
  out->epochs = epochs_run;
  out->schedule_epochs = c->epochs;
  out->batch = c->batch;
  out->seed = c->seed;
  out->has_seed = 1;
  out->test_accuracy = test_accuracy;
}

int checkpoint_io_save(trainer *t, const char *path, const trainer_config *c,
                       gpu_precision precision, int epochs_run, int steps,
                       double test_accuracy, char *err, size_t err_size) {
  const mlp *net = trainer_network(t);
  mlp_layout real;
  if (mlp_layout_init(&real, net->units, net->layout.depth, err, err_size) != 0)
    return -1;
  float *slab = malloc(net->layout.slab_floats * sizeof(float));
  float *out = calloc(real.slab_floats, sizeof(float));
  int status = slab && out ? trainer_get_params(t, slab) : -1;
  if (status == 0) {
    mlp_layout_copy_params(&real, out, &net->layout, slab);
    mlp_checkpoint_meta meta;
    float scale = 0, shift = 0;
    trainer_pixel_transform(t, &scale, &shift);
    checkpoint_io_meta(&meta, c, precision, epochs_run, steps, test_accuracy,
                       scale, shift);
    status = mlp_checkpoint_save(path, &real, out, &meta, err, err_size);
  } else if (!slab || !out) {
    snprintf(err, err_size, "--save %s: out of host memory", path);
  } else {
    snprintf(err, err_size, "--save %s: reading the parameters failed", path);
  }
  free(slab);
  free(out);
  return status;
}
