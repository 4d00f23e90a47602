/* mlp_checkpoint_meta.h: what a checkpoint says about its run, kept in the
 * safetensors "__metadata__" (string -> string): the format tag, the
 * widths, activation, precision (and an fp8 run's recipe), training
 * mode, padding, epochs, seed, batch, test accuracy and the program's
 * version. Plain C.
 *
 * Owns: the struct, its conversion to metadata pairs for the writer, and
 * the checks on a file's metadata (every entry optional; "format", when
 * present, must be MLP_CHECKPOINT_FORMAT; numbers must parse whole and lie
 * in their range; names must be the program's: precision, mode, padding,
 * schedule, order).
 */
#ifndef MNIST_EPILOGS_MLP_CHECKPOINT_META_H
#define MNIST_EPILOGS_MLP_CHECKPOINT_META_H

#include <stddef.h>

#include "checkpoint/safetensors.h"

#define MLP_CHECKPOINT_FORMAT "mnist-epilogs mlp v1"
/* Room for one metadata string, its terminating 0 included. */
#define MLP_CHECKPOINT_TEXT 128
/* Metadata pairs the writer writes at most. */
#define MLP_CHECKPOINT_PAIRS 22

typedef struct mlp_checkpoint_meta {
  char format[MLP_CHECKPOINT_TEXT];     /* read: as found ("" absent); the
                                           writer always writes the tag */
  char widths[MLP_CHECKPOINT_TEXT];     /* "784-1024-1024-10"; read: as found;
                                           the writer takes the layout's */
  char activation[MLP_CHECKPOINT_TEXT]; /* "relu", "gelu"; "" unknown */
  char precision[MLP_CHECKPOINT_TEXT];  /* "fp32", "bf16", ...; "" unknown */
  char version[MLP_CHECKPOINT_TEXT];    /* the program's; "" unknown */
  int epochs;              /* epochs run (the last may be cut short by --steps);
                              -1 unknown */
  int schedule_epochs;     /* the epochs the learning-rate schedule spans
                              (--epochs); -1 unknown (older files: their
                              `epochs` was this) */
  int batch;               /* >= 1; -1 unknown */
  unsigned long long seed; /* valid when has_seed */
  int has_seed;
  double test_accuracy; /* percent, 0 to 100; negative: unknown */
  /* How the run trained, as text, so that it can be replayed outside
   * (scripts/replay_step_pytorch.py); "" unknown: */
  char lr[MLP_CHECKPOINT_TEXT];          /* "0.05" */
  char momentum[MLP_CHECKPOINT_TEXT];    /* "0.9" */
  char schedule[MLP_CHECKPOINT_TEXT];    /* "cosine", "constant" */
  char order[MLP_CHECKPOINT_TEXT];       /* "shuffle", "file" */
  char steps[MLP_CHECKPOINT_TEXT];       /* optimiser steps run */
  char pixel_scale[MLP_CHECKPOINT_TEXT]; /* x = pixel * scale + shift */
  char pixel_shift[MLP_CHECKPOINT_TEXT];
  /* How the run computed, for a reader only (a load applies neither:
   * the file holds the real units whatever the padding, and any mode
   * computes the same network); "" unknown (files written before they
   * were recorded): */
  char mode[MLP_CHECKPOINT_TEXT];   /* "fused", "unfused", "auto" (--mode) */
  char pad_to[MLP_CHECKPOINT_TEXT]; /* "none", or the multiple the widths
                                       were padded to: "8", "16", "32" */
  /* The FP8 recipe of an fp8 run (layers/fp8.h: fp8_recipe_names), which
   * evaluating the file takes unless told otherwise; "" unknown or not
   * fp8: */
  char fp8_format[MLP_CHECKPOINT_TEXT];     /* "hybrid", "e4m3" */
  char fp8_scaling[MLP_CHECKPOINT_TEXT];    /* "delayed", "current" */
  char fp8_fast_accum[MLP_CHECKPOINT_TEXT]; /* "forward", "all", "none" */
} mlp_checkpoint_meta;

/* Everything unknown: strings "", numbers -1, no seed. */
void mlp_checkpoint_meta_init(mlp_checkpoint_meta *meta);

/* The pairs the writer writes, pointing into `meta`, `widths` and the
 * struct's own number texts. */
typedef struct mlp_checkpoint_pairs {
  safetensors_pair pairs[MLP_CHECKPOINT_PAIRS];
  int count;
  char numbers[5][40]; /* epochs, seed, batch, test_accuracy,
                          schedule_epochs as text */
} mlp_checkpoint_pairs;

/* Fills *out from `meta` (NULL: nothing known) and `widths` ("784-...").
 * The strings of `meta` and `widths` must outlive *out. */
void mlp_checkpoint_pairs_fill(mlp_checkpoint_pairs *out,
                               const mlp_checkpoint_meta *meta,
                               const char *widths);

/* One line on the run `meta` records, for a reader: "784-100-10, relu,
 * bf16, fused mode, units padded to 16, 5 epochs of batch 128, test
 * accuracy 98.32%" (fp8: "fp8, fp8 hybrid, delayed scaling, fast
 * accumulation forward" after the precision); what the file does not
 * record is left out ("" when it
 * records none of these); bytes outside printable ASCII are shown as '?'
 * (the text is the file's). */
void mlp_checkpoint_meta_describe(char *out, size_t size,
                                  const mlp_checkpoint_meta *meta);

/* Fills *out from the metadata of `file` (read from `path`), each value
 * checked: activation relu or gelu; precision fp32, tf32, bf16, fp16 or
 * fp8; mode fused, unfused or auto; pad_to none, 8, 16 or 32; schedule
 * cosine or constant; order shuffle or file; lr a number > 0 and momentum
 * one in [0, 1), both finite and normal as floats; epochs, schedule_epochs
 * and steps whole numbers >= 0, batch >= 1. Returns 0, or -1 with `err`
 * "PATH: metadata 'KEY': expected ..., found ...". */
int mlp_checkpoint_meta_read(mlp_checkpoint_meta *out,
                             const safetensors_file *file, const char *path,
                             char *err, size_t err_size);

#endif
