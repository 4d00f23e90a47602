/* checkpoint_io.c: see checkpoint_io.h. */
#include "train/checkpoint_io.h"

#include "checkpoint/write_target.h"
#include "data/mnist.h"

#include <errno.h>
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

int checkpoint_io_load(mlp_checkpoint *out, trainer_config *c, const char *path,
                       int hidden_given, int activation_given, char *err,
                       size_t err_size) {
  if (mlp_checkpoint_load(path, hidden_given ? c->widths : NULL, c->depth, out,
                          err, err_size) != 0)
    return -1;
  int depth = out->layout.depth;
  if (out->layout.widths[0] != MNIST_PIXELS ||
      out->layout.widths[depth] != MNIST_CLASSES) {
    char widths[256];
    mlp_checkpoint_widths_text(widths, sizeof widths, out->layout.widths,
                               depth);
    snprintf(err, err_size,
             "--load %s: expected a 784-...-10 network, found %s", path,
             widths);
    mlp_checkpoint_destroy(out);
    return -1;
  }
  const char *found = out->meta.activation;
  const char *asked = lt_activation_name(c->activation);
  if (found[0] && activation_given && strcmp(found, asked) != 0) {
    snprintf(err, err_size,
             "--load %s: expected a network with %s layers (--activation), "
             "found one trained with %s",
             path, asked, found);
    mlp_checkpoint_destroy(out);
    return -1;
  }
  if (found[0] && !activation_given)
    c->activation =
        strcmp(found, "gelu") == 0 ? LT_ACTIVATION_GELU : LT_ACTIVATION_RELU;
  c->depth = out->layout.depth;
  memcpy(c->widths, out->layout.widths, sizeof c->widths);
  return 0;
}

int checkpoint_io_apply(trainer *t, const mlp_checkpoint *checkpoint) {
  const mlp *net = trainer_network(t);
  float *slab = calloc(net->layout.slab_floats, sizeof(float));
  if (!slab) {
    fprintf(stderr, "mnist_train: out of host memory for the checkpoint\n");
    return -1;
  }
  mlp_layout_copy_params(&net->layout, slab, &checkpoint->layout,
                         checkpoint->slab);
  int status = trainer_set_params(t, slab);
  free(slab);
  return status;
}

/* "%.9g" of a float: what reads back as the same float. */
static void float_text(char *out, double value) {
  snprintf(out, MLP_CHECKPOINT_TEXT, "%.9g", value);
}

int checkpoint_io_save(trainer *t, const char *path, const trainer_config *c,
                       gpu_precision precision, const mnist_dataset *data,
                       int steps, double test_accuracy, char *err,
                       size_t err_size) {
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
    mlp_checkpoint_meta_init(&meta);
    float scale = 0, shift = 0;
    mnist_pixel_transform(&scale, &shift, data);
    snprintf(meta.activation, sizeof meta.activation, "%s",
             lt_activation_name(c->activation));
    snprintf(meta.precision, sizeof meta.precision, "%s",
             gpu_precision_name(precision));
    snprintf(meta.version, sizeof meta.version, "%s", MNIST_VERSION);
    snprintf(meta.schedule, sizeof meta.schedule, "%s",
             c->cosine ? "cosine" : "constant");
    snprintf(meta.order, sizeof meta.order, "%s",
             c->file_order ? "file" : "shuffle");
    snprintf(meta.steps, sizeof meta.steps, "%d", steps);
    float_text(meta.lr, c->lr);
    float_text(meta.momentum, c->momentum);
    float_text(meta.pixel_scale, scale);
    float_text(meta.pixel_shift, shift);
    meta.epochs = c->epochs;
    meta.batch = c->batch;
    meta.seed = c->seed;
    meta.has_seed = 1;
    meta.test_accuracy = test_accuracy;
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
