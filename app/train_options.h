/* train_options.h: the command line of mnist_train, parsed into the run's
 * configuration (train_config.h), the GPU's options (gpu/gpu_options.h)
 * and the program's own switches. Plain C, no CUDA: the parser is tested
 * on any machine. */
#ifndef MNIST_EPILOGS_TRAIN_OPTIONS_H
#define MNIST_EPILOGS_TRAIN_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

#include "gpu/gpu_options.h"
#include "train/train_config.h"

typedef struct train_options {
  trainer_config config; /* trainer_config_defaults() unless given, but the
                            context cycle on (train_options_defaults) */
  gpu_options gpu;       /* gpu_options_defaults() unless given */
  const char *data_dir;  /* NULL: $MNIST_DIR, then data/mnist */
  const char *log_path;  /* NULL: no CSV */
  const char *save_path; /* NULL: the trained network is not kept */
  const char *load_path; /* NULL: start from random weights */
  int steps;             /* --steps N (-1: not given; 0: no training) */
  int hidden_given;      /* --hidden was given (--load's widths must agree) */
  int activation_given;  /* --activation was given (--load's must agree) */
  int batch_given;     /* --batch was given (else --epochs 0 takes --load's) */
  int precision_given; /* --precision was given (else, likewise) */
  int fp8_given[3];    /* --fp8-format, --fp8-scaling, --fp8-fast-accum
                          given (else --epochs 0 takes --load's) */
  int mode_given;      /* --mode was given (else --load's file's mode) */
  int pad_given;       /* --pad-units or --pad-to was given (likewise) */
  int pad_asked;       /* the multiple --pad-units / --pad-to asked for before
                          FP8's rule (trainer_config_fit_precision); 0: none */
  int quiet;
  int show_plans; /* list the cuBLASLt plans after training */
  int help;
  int check_flags; /* parse, report, exit: no data, no GPU */
  int check_data;  /* load and validate the data, no GPU */
} train_options;

/* The defaults of trainer_config_defaults and gpu_options_defaults, and
 * the context cycle on (trainer_config.context_cycle). */
void train_options_defaults(train_options *out);

/* Parses argv[1..argc) over the defaults (cli_flags.h: strict numbers, a
 * flag at most once). Returns 0, or -1 with `err` naming the flag, what
 * was expected and what was found. */
int train_options_parse(train_options *out, int argc, char **argv, char *err,
                        size_t err_size);

/* 0 when no --fp8-* flag was given or the run's precision is fp8; else
 * -1 with `err` naming the flag and the precision found. Parsing checks
 * it, but for --epochs 0 without --precision, whose precision is the
 * checkpoint's: then the caller checks once it has loaded it. */
int train_options_check_fp8(const train_options *o, char *err, size_t err_size);

/* Parses "1024,1024" (or "none") into hidden[]; returns 0 or -1 + err. */
int train_options_parse_hidden(int *hidden, int *count, const char *text,
                               char *err, size_t err_size);

/* The --chain flag of mnist_train and mnist_bench, as a cli_flag parse
 * function: *(unsigned *)target = the GPU_CHAIN_* bits of `value`
 * (gpu_chain_parse). Returns 0, or -1 with `err` naming --chain. */
int train_options_parse_chain(void *target, const char *value, char *err,
                              size_t err_size);

/* The --pad-to values ("8", "16", "32"), NULL-terminated, and the padding
 * multiple the index-th of them names. */
const char *const *train_options_pad_choices(void);
int train_options_pad_choice(int index);

/* The flags only training reads, which --epochs 0 refuses, as "--steps,
 * --lr, ...": the one list the parser's message and --help print. */
void train_options_training_flags(char *out, size_t size);

void train_options_usage(FILE *out, const char *program);

/* What a run with these options would do, in one line (--check-flags):
 * training or evaluation, the network, precision, mode and padding (and a
 * precision's rule that changed the padding asked for: FP8's 8 -> 16), the
 * files it would read and write, the data folder (train_describe.c). */
void train_options_describe(FILE *out, const train_options *o);

#endif
