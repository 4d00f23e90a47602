/* train_outputs.h: mnist_train's output files (--log, --save) checked
 * before anything is read or run, by the rules every writer follows
 * (checkpoint/write_target.h), and against the files the run reads: the
 * --load checkpoint (--log only: --save equal to --load is a run that
 * updates its checkpoint) and every MNIST file name of the data folder.
 * Plain C: --check-flags runs it too. */
#ifndef MNIST_EPILOGS_TRAIN_OUTPUTS_H
#define MNIST_EPILOGS_TRAIN_OUTPUTS_H

#include <stddef.h>

#include "app/train_options.h"

/* 0 when --log and --save (those given) can be replaced and name none of
 * the run's inputs nor each other; else -1 with `err` naming the flag, the
 * path, what was expected and what was found. The data folder is found as
 * the run finds it (train/data_source.h; `source_dir` the project's); none
 * found: nothing to compare. Reads no file; the write probes leave
 * nothing. */
int train_outputs_check(const train_options *o, const char *source_dir,
                        char *err, size_t err_size);

#endif
