/* mnist.h: the MNIST data set (and any data set in its format, such as
 * Fashion-MNIST) loaded from one directory, with MNIST's shape checked on
 * top of the idx reader, and normalised float batches.
 *
 * Owns: the pixels as bytes and the labels of the training and test splits,
 * and the paths of the four files read (which file is read: mnist_files.h).
 */
#ifndef MNIST_EPILOGS_MNIST_H
#define MNIST_EPILOGS_MNIST_H

#include "data/idx.h"

#define MNIST_ROWS 28
#define MNIST_COLS 28
#define MNIST_PIXELS (MNIST_ROWS * MNIST_COLS)
#define MNIST_CLASSES 10

/* One split: `count` images of 28x28 bytes, row-major, and their labels. */
typedef struct mnist_split {
  int count;
  uint8_t *images; /* [count][784] */
  uint8_t *labels; /* [count], each 0..9 */
} mnist_split;

/* The four files of a data set, in the order they are loaded. */
enum mnist_file {
  MNIST_TRAIN_IMAGES,
  MNIST_TRAIN_LABELS,
  MNIST_TEST_IMAGES,
  MNIST_TEST_LABELS,
  MNIST_FILE_COUNT
};

typedef struct mnist_dataset {
  mnist_split train;
  mnist_split test;
  /* Mean and standard deviation of the training pixels scaled to [0, 1];
   * mnist_pixel_transform turns them into the normalisation. */
  float pixel_mean;
  float pixel_std;
  /* The path of each file read (the first present of its candidate names),
   * indexed by enum mnist_file. */
  char files[MNIST_FILE_COUNT][4096];
} mnist_dataset;

/* Loads one split from an images and a labels file; checks rank, type and
 * 28x28 from the headers before reading the payloads, then labels 0..9 and
 * equal counts. On error `out` is left empty. */
enum idx_status mnist_split_load(mnist_split *out, const char *images_path,
                                 const char *labels_path, idx_error *err);

/* Loads both splits from the four files in `dir` under the file rule
 * (mnist_files.h: every present copy is read and must agree) and records
 * the path read for each in out->files. On error `out` is left empty. */
enum idx_status mnist_dataset_load(mnist_dataset *out, const char *dir,
                                   idx_error *err);

/* The test split alone (its two files under the same rule), for running a
 * saved network: out->train stays empty, the pixel statistics 0, and the
 * files of the training split are neither needed nor looked at. On error
 * `out` is left empty. */
enum idx_status mnist_test_load(mnist_dataset *out, const char *dir,
                                idx_error *err);

/* Free what the loads allocated and empty the struct; no-ops on NULL. */
void mnist_split_destroy(mnist_split *split);
void mnist_dataset_destroy(mnist_dataset *dataset);

/* The normalisation, in float: normalised pixel = pixel * scale + shift
 * (pixel 0..255), i.e. (pixel / 255 - mean) / std, with *scale =
 * 1 / (255 * std) and *shift = -mean / std from the training pixels. */
void mnist_pixel_transform(float *scale, float *shift,
                           const mnist_dataset *data);

/* Writes the normalised pixels of samples indices[0..n) as a column-major
 * (784, n) matrix: x[j * 784 + p] = pixel * scale + shift (the scale and
 * shift of mnist_pixel_transform). */
void mnist_batch_fill(float *x, const mnist_split *split, const int *indices,
                      int n, float scale, float shift);

#endif
