/* checkpoint_io.h: the programs' checkpoints: the rules every use of one
 * follows (a 784-...-10 network, its activation by name, its own pixel
 * normalisation), each in one function here; checking where --save will
 * write before anything runs, reading --load's file before the GPU is
 * touched (its widths, activation and normalisation become the run's),
 * putting the loaded parameters into the trainer's network, and saving
 * the trained one with the run's settings as metadata
 * (checkpoint/mlp_checkpoint.h). */
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

/* The MNIST rule: 0 when the checkpoint maps 784 inputs to 10 classes;
 * else -1 with `err` "FLAG PATH: expected a 784-...-10 network, found
 * 784-100-7". */
int checkpoint_io_check_widths(const mlp_checkpoint *checkpoint,
                               const char *flag, const char *path, char *err,
                               size_t err_size);

/* The activation the checkpoint names: "relu" or "" (files that do not say:
 * the default) -> ReLU, "gelu" -> GELU. Returns 0, or -1 with `err`
 * naming the flag, the file and the name found. */
int checkpoint_io_activation(lt_activation *out,
                             const mlp_checkpoint *checkpoint, const char *flag,
                             const char *path, char *err, size_t err_size);

/* The largest normalised pixel a checkpoint may ask for: FP16's largest
 * finite value, so the inputs stay finite in every precision. */
#define CHECKPOINT_IO_MAX_INPUT 65504.0

/* The normalisation the network was trained with (x = pixel * scale +
 * shift): returns 0 with *scale, *shift set; 1 when the file does not
 * record it (older files: the caller takes the training split's); -1 with
 * `err` when it is there but not two numbers finite and normal as floats,
 * scale > 0, mapping every pixel 0 to 255 within CHECKPOINT_IO_MAX_INPUT. */
int checkpoint_io_pixel_transform(float *scale, float *shift,
                                  const mlp_checkpoint *checkpoint,
                                  const char *flag, const char *path, char *err,
                                  size_t err_size);

/* The precision the checkpoint was trained in: its metadata's name, or
 * FP32 for files that do not say (older ones). Returns 0, or -1 with `err`
 * naming the flag, the file, the names known (every gpu_precision) and the
 * name found. */
int checkpoint_io_precision(gpu_precision *out,
                            const mlp_checkpoint *checkpoint, const char *flag,
                            const char *path, char *err, size_t err_size);

/* The FP8 recipe the checkpoint records (an fp8 run's) into *recipe, but
 * the fields whose flag was given (given[0..2]: --fp8-format,
 * --fp8-scaling, --fp8-fast-accum); a file that records none leaves it.
 * Returns 0, or -1 with `err` naming the flag, the file and the name
 * found. */
int checkpoint_io_fp8_recipe(fp8_recipe *recipe,
                             const mlp_checkpoint *checkpoint,
                             const int given[3], const char *flag,
                             const char *path, char *err, size_t err_size);

/* Evaluation in the checkpoint's settings (mnist_train --epochs 0): its
 * batch becomes c->batch unless `batch_given` (or the file has none), its
 * precision *precision unless `precision_given`, its FP8 recipe c->fp8's
 * (checkpoint_io_fp8_recipe, fp8_given). Returns 0, or -1 with `err` (a
 * name that is not one). */
int checkpoint_io_eval_settings(trainer_config *c, gpu_precision *precision,
                                const mlp_checkpoint *checkpoint,
                                int batch_given, int precision_given,
                                const int fp8_given[3], const char *path,
                                char *err, size_t err_size);

/* The batch to evaluate `count` images in: `batch` capped at `count`, so
 * a file's claim never sizes an allocation; at least 1. */
int checkpoint_io_eval_batch(int batch, int count);

/* What the command line gave of the settings a checkpoint also records;
 * for those not given, the file's become the run's. */
typedef struct checkpoint_io_given {
  int hidden;     /* --hidden: the file's widths must agree */
  int activation; /* --activation: the file's must agree */
  int mode;       /* --mode: else the file's mode (fused, unfused, auto) */
  int padding;    /* --pad-units, --pad-to: else the file's pad_to */
} checkpoint_io_given;

/* Loads `path` (--load) into *out (validated: mlp_checkpoint_load) with
 * the widths of c when `given.hidden` (they must agree), else takes the
 * file's into c, which must be 784-...-10; the file's activation becomes
 * c's unless `given.activation` named another (then an error); its mode
 * and padding become c's unless given (a file that records none keeps
 * c's); its pixel normalisation, when it records one, becomes c's.
 * Returns 0, or -1 with `err` (nothing left allocated). */
int checkpoint_io_load(mlp_checkpoint *out, trainer_config *c, const char *path,
                       checkpoint_io_given given, char *err, size_t err_size);

/* The metadata --save writes (plain C): the run's settings (c,
 * precision and FP8 recipe), the epochs that ran (`epochs_run`, the last
 * perhaps cut short by --steps) and the schedule's span (c->epochs, as
 * schedule_epochs), the optimiser steps run, the final test accuracy
 * (percent, negative: unknown) and the normalisation (scale, shift). */
void checkpoint_io_meta(mlp_checkpoint_meta *out, const trainer_config *c,
                        gpu_precision precision, int epochs_run, int steps,
                        double test_accuracy, float scale, float shift);

/* Saves the trainer's parameters (its real units) to `path` (--save) with
 * checkpoint_io_meta's metadata (the data's normalisation:
 * trainer_pixel_transform). Returns 0, or -1 with `err`. */
int checkpoint_io_save(trainer *t, const char *path, const trainer_config *c,
                       gpu_precision precision, int epochs_run, int steps,
                       double test_accuracy, char *err, size_t err_size);

#endif
