/* data_source.h: which folder the programs read the data from, loading it
 * with a message for the user, and the rule that no output is one of its
 * files. Plain C. */
#ifndef MNIST_EPILOGS_DATA_SOURCE_H
#define MNIST_EPILOGS_DATA_SOURCE_H

#include <stddef.h>

#include "data/mnist.h"

/* Writes the data folder to `out`: `given` (--data-dir), else
 * $MNIST_DIR, else data/mnist here, else data/mnist under `source_dir` (so
 * the programs work from the build folder). Returns 0, or -1 with `err`
 * saying where it looked and how to download (err NULL: no message). */
int data_source_find(char *out, size_t size, const char *given,
                     const char *source_dir, char *err, size_t err_size);

/* data_source_find, then mnist_dataset_load from that folder (its path
 * left in `dir`), or mnist_test_load when `test_only`. Returns 0, or -1
 * with `err` (the loader's message naming the file and, for a folder from
 * $MNIST_DIR, a line saying so). */
int data_source_load(mnist_dataset *out, char *dir, size_t dir_size,
                     const char *given, const char *source_dir, int test_only,
                     char *err, size_t err_size);

/* 0 when the output file `path` (`flag`: --log, --save, --json) is none of
 * the files the loader looks at in `dir`: every candidate name of the four
 * MNIST files (data/mnist_files.h), present or not, compared as the
 * writers resolve names (checkpoint/write_target.h: write_target_same).
 * Else -1 with `err` naming the flag, the path and the data file: a run
 * never replaces a file it reads. Reads no file. */
int data_source_check_output(const char *flag, const char *path,
                             const char *dir, char *err, size_t err_size);

#endif
