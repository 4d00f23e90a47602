/* checkpoint_io.h: mnist_train's checkpoints: checking where --save will
 * write before anything runs, reading --load's file before the GPU is
 * touched (its widths and activation become the run's), putting the
 * loaded parameters into the trainer's network, and saving the trained
 * one with the run's settings as metadata (checkpoint/mlp_checkpoint.h). */
#ifndef MNIST_EPILOGS_CHECKPOINT_IO_H
#define MNIST_EPILOGS_CHECKPOINT_IO_H

#include <stddef.h>

#include "checkpoint/mlp_checkpoint.h"
#include "data/mnist.h"
#include "gpu/gpu_options.h"
#include "train/train_config.h"
#include "train/trainer.h"

/* 0 when --save can replace `path` (checkpoint/write_target.h: absent or
 * a regular file that opens for writing, a file can be made beside it);
 * else -1 with `err` naming it and why. */
int checkpoint_io_check_target(const char *path, char *err, size_t err_size);

/* Loads `path` (--load) into *out (validated: mlp_checkpoint_load) with
 * the widths of c when `hidden_given` (they must agree), else takes the
 * file's into c, which must be 784-...-10; the file's activation becomes
 * c's unless `activation_given` named another (then an error). Returns 0,
 * or -1 with `err` (nothing left allocated). */
int checkpoint_io_load(mlp_checkpoint *out, trainer_config *c, const char *path,
                       int hidden_given, int activation_given, char *err,
                       size_t err_size);

/* Puts the checkpoint's parameters into the trainer's network (padded
 * units, if any, stay zero). Returns 0 or -1. */
int checkpoint_io_apply(trainer *t, const mlp_checkpoint *checkpoint);

/* Saves the trainer's parameters (its real units) to `path` (--save) with
 * the run's settings (c, precision), `steps` run and the final test accuracy
 * (percent, negative: unknown). Returns 0, or -1 with `err`. */
int checkpoint_io_save(trainer *t, const char *path, const trainer_config *c,
                       gpu_precision precision, const mnist_dataset *data,
                       int steps, double test_accuracy, char *err,
                       size_t err_size);

#endif
