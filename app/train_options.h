/* train_options.h: the command line of mnist_train (and the shared part of
 * mnist_bench's), parsed into one struct. Plain C, no CUDA: the parser is
 * tested on any machine. */
#ifndef MNIST_EPILOGS_TRAIN_OPTIONS_H
#define MNIST_EPILOGS_TRAIN_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

#include "../layers/mlp_layout.h"

typedef struct train_options {
  int epochs;
  int batch;
  float lr;
  float momentum;
  int constant_lr;             /* --schedule constant (default cosine) */
  int hidden[MLP_MAX_LAYERS - 1];
  int hidden_count;            /* 0: logistic regression */
  unsigned long long seed;
  int unfused;                 /* --mode unfused */
  const char *data_dir;        /* NULL: $MNIST_DIR, then data/mnist */
  int tf32;
  int device;
  const char *log_path;        /* NULL: no CSV */
  int quiet;
  int show_plans;              /* list the cuBLASLt plans after training */
  int graphs;                  /* CUDA graph replay of each epoch */
  int autotune;                /* gpu_autotune: 0 off, 1 exact, 2 fast */
  int help;
  int check_flags;             /* parse, report, exit: no data, no GPU */
  int check_data;              /* load and validate the data, no GPU */
} train_options;

/* The defaults: 784-1024-1024-10, batch 128, lr 0.05 with a cosine
 * schedule, momentum 0.9, 5 epochs, seed 1, fused, FP32, graphs on,
 * autotune exact. */
void train_options_defaults(train_options *out);

/* Parses argv[1..argc) over the defaults; "--flag value" and
 * "--flag=value" both work. Returns 0, or -1 with `err` naming the flag,
 * what was expected and what was found. */
int train_options_parse(train_options *out, int argc, char **argv, char *err,
                        size_t err_size);

/* Parses "1024,1024" (or "none") into hidden[]; returns 0 or -1 + err. */
int train_options_parse_hidden(int *hidden, int *count, const char *text,
                               char *err, size_t err_size);

void train_options_usage(FILE *out, const char *program);

/* Writes the data folder to `out`: `given` (--data-dir), else
 * $MNIST_DIR, else data/mnist here, else data/mnist under `source_dir` (so
 * the programs work from the build folder). Returns 0, or -1 with a
 * message on stderr saying where it looked and how to download. */
int train_find_data_dir(char *out, size_t size, const char *given,
                        const char *source_dir);

#endif
