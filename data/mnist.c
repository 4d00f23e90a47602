/* mnist.c: MNIST's expectations on top of the idx reader: the shape checked
 * from each header before its payload is read, labels 0..9 and equal counts
 * after, the pixel statistics and the normalised batches. */
#include "data/mnist.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "data/mnist_files.h"

void mnist_split_destroy(mnist_split *split) {
  if (!split) return;
  free(split->images);
  free(split->labels);
  memset(split, 0, sizeof *split);
}

void mnist_dataset_destroy(mnist_dataset *dataset) {
  if (!dataset) return;
  mnist_split_destroy(&dataset->train);
  mnist_split_destroy(&dataset->test);
  memset(dataset, 0, sizeof *dataset);
}

/* idx_check_fn for an images file: rank 3, u8, 28x28, 1 or more images. */
static enum idx_status check_images(const idx_array *a, const char *path,
                                    void *arg, idx_error *err) {
  (void)arg;
  if (a->rank != 3)
    return idx_fail(err, IDX_ERR_CONTENT,
                    "%s: expected images (3 dimensions: count, 28, 28), found "
                    "a %d-dimension file; hint: %s",
                    path, a->rank,
                    a->rank == 1 ? "images and labels swapped?"
                                 : "corrupt header (its rank byte)?");
  if (a->type != IDX_TYPE_U8)
    return idx_fail(err, IDX_ERR_CONTENT,
                    "%s: expected unsigned bytes (type 0x08), found type "
                    "0x%02x",
                    path, (unsigned)a->type);
  if (a->dims[1] != MNIST_ROWS || a->dims[2] != MNIST_COLS)
    return idx_fail(err, IDX_ERR_CONTENT,
                    "%s: expected 28x28 images, found %ux%u", path, a->dims[1],
                    a->dims[2]);
  if (a->dims[0] == 0 || a->dims[0] > 0x7fffffffu / MNIST_PIXELS)
    return idx_fail(err, IDX_ERR_CONTENT,
                    "%s: expected 1 or more images, found %u", path,
                    a->dims[0]);
  return IDX_OK;
}

/* idx_check_fn for a labels file: rank 1, u8 (values are checked later). */
static enum idx_status check_labels(const idx_array *a, const char *path,
                                    void *arg, idx_error *err) {
  (void)arg;
  if (a->rank != 1)
    return idx_fail(err, IDX_ERR_CONTENT,
                    "%s: expected labels (1 dimension), found a %d-dimension "
                    "file; hint: %s",
                    path, a->rank,
                    a->rank == 3 ? "images and labels swapped?"
                                 : "corrupt header (its rank byte)?");
  if (a->type != IDX_TYPE_U8)
    return idx_fail(err, IDX_ERR_CONTENT,
                    "%s: expected unsigned bytes (type 0x08), found type "
                    "0x%02x",
                    path, (unsigned)a->type);
  return IDX_OK;
}

/* Checks the label values and counts of two arrays that passed the header
 * checks and moves their data into `out`; on error frees both. */
static enum idx_status split_assemble(mnist_split *out, idx_array *images,
                                      const char *images_path,
                                      idx_array *labels,
                                      const char *labels_path, idx_error *err) {
  enum idx_status status = IDX_OK;
  for (size_t i = 0; i < labels->count && status == IDX_OK; i++)
    if (labels->data[i] >= MNIST_CLASSES)
      status = idx_fail(err, IDX_ERR_CONTENT,
                        "%s: expected labels 0 to 9, found %u at index %zu",
                        labels_path, labels->data[i], i);
  if (status == IDX_OK && labels->dims[0] != images->dims[0])
    status =
        idx_fail(err, IDX_ERR_CONTENT,
                 "%s: expected %u labels (one per image in %s), found %u",
                 labels_path, images->dims[0], images_path, labels->dims[0]);
  if (status != IDX_OK) {
    idx_array_destroy(images);
    idx_array_destroy(labels);
    return status;
  }
  out->count = (int)images->dims[0];
  out->images = images->data;
  out->labels = labels->data;
  images->data = labels->data = NULL;
  return IDX_OK;
}

enum idx_status mnist_split_load(mnist_split *out, const char *images_path,
                                 const char *labels_path, idx_error *err) {
  memset(out, 0, sizeof *out);
  idx_array images = {0}, labels = {0};
  enum idx_status status =
      idx_read_checked(&images, images_path, check_images, NULL, err);
  if (status == IDX_OK)
    status = idx_read_checked(&labels, labels_path, check_labels, NULL, err);
  if (status != IDX_OK) {
    idx_array_destroy(&images);
    return status;
  }
  return split_assemble(out, &images, images_path, &labels, labels_path, err);
}

static enum idx_status check_dir(const char *dir, idx_error *err) {
  struct stat info;
  if (stat(dir, &info) != 0) {
    int error = errno;
    if (error == ENOENT)
      return idx_fail(err, IDX_ERR_OPEN,
                      "%s: expected a directory holding the MNIST files, "
                      "found nothing; hint: fetch the data with "
                      "scripts/download_mnist.sh %s",
                      dir, dir);
    return idx_fail(err, IDX_ERR_OPEN,
                    "%s: expected a directory holding the MNIST files, found "
                    "a path that cannot be looked at (%s); hint: %s",
                    dir, strerror(error), mnist_stat_hint(error));
  }
  if (!S_ISDIR(info.st_mode))
    return idx_fail(err, IDX_ERR_OPEN,
                    "%s: expected a directory holding the MNIST files, found "
                    "a file; hint: pass the folder that holds the four files "
                    "(scripts/download_mnist.sh DIR fetches them into DIR)",
                    dir);
  return IDX_OK;
}

/* Loads files `first` .. MNIST_FILE_COUNT - 1 (all, or the test split's
 * two) into their splits. */
static enum idx_status load_files(mnist_dataset *out, const char *dir,
                                  int first, idx_error *err) {
  /* Look at every name first, so that a missing or unreachable file is
   * reported before 50 MB are read. */
  unsigned present[MNIST_FILE_COUNT] = {0};
  for (int f = first; f < MNIST_FILE_COUNT; f++) {
    enum idx_status status =
        mnist_file_find(&present[f], dir, (enum mnist_file)f, err);
    if (status != IDX_OK) return status;
  }
  idx_array arrays[MNIST_FILE_COUNT] = {{0}};
  enum idx_status status = IDX_OK;
  for (int f = first; f < MNIST_FILE_COUNT && status == IDX_OK; f++) {
    int images = f == MNIST_TRAIN_IMAGES || f == MNIST_TEST_IMAGES;
    status = mnist_file_read(&arrays[f], out->files[f], sizeof out->files[f],
                             dir, (enum mnist_file)f, present[f],
                             images ? check_images : check_labels, NULL, err);
  }
  if (status == IDX_OK && first == MNIST_TRAIN_IMAGES)
    status = split_assemble(&out->train, &arrays[MNIST_TRAIN_IMAGES],
                            out->files[MNIST_TRAIN_IMAGES],
                            &arrays[MNIST_TRAIN_LABELS],
                            out->files[MNIST_TRAIN_LABELS], err);
  if (status == IDX_OK)
    status = split_assemble(
        &out->test, &arrays[MNIST_TEST_IMAGES], out->files[MNIST_TEST_IMAGES],
        &arrays[MNIST_TEST_LABELS], out->files[MNIST_TEST_LABELS], err);
  for (int f = 0; f < MNIST_FILE_COUNT; f++)
    idx_array_destroy(&arrays[f]);
  return status;
}

enum idx_status mnist_dataset_load(mnist_dataset *out, const char *dir,
                                   idx_error *err) {
  memset(out, 0, sizeof *out);
  enum idx_status status = check_dir(dir, err);
  if (status == IDX_OK) status = load_files(out, dir, MNIST_TRAIN_IMAGES, err);
  if (status != IDX_OK) {
    mnist_dataset_destroy(out);
    return status;
  }
  /* The sums of the bytes and of their squares, exact in 64 bits (below
   * 2^34 and 2^42 for MNIST's 47 million pixels; check_images allows at
   * most 2^31 pixels, so below 2^39 and 2^47 for any file it passes): a
   * third of the time of summing scaled doubles one after the other (66
   * ms on the project's CPU machine), and the same floats for MNIST and
   * Fashion-MNIST (test_mnist_real). */
  uint64_t sum = 0, sum_sq = 0;
  size_t n = (size_t)out->train.count * MNIST_PIXELS;
  for (size_t i = 0; i < n; i++) {
    uint64_t p = out->train.images[i];
    sum += p;
    sum_sq += p * p;
  }
  double mean = (double)sum / 255.0 / (double)n;
  double var = (double)sum_sq / (255.0 * 255.0) / (double)n - mean * mean;
  out->pixel_mean = (float)mean;
  out->pixel_std = var > 1e-12 ? (float)sqrt(var) : 1.0f;
  return IDX_OK;
}

enum idx_status mnist_test_load(mnist_dataset *out, const char *dir,
                                idx_error *err) {
  memset(out, 0, sizeof *out);
  enum idx_status status = check_dir(dir, err);
  if (status == IDX_OK) status = load_files(out, dir, MNIST_TEST_IMAGES, err);
  if (status != IDX_OK) mnist_dataset_destroy(out);
  return status;
}

void mnist_pixel_transform(float *scale, float *shift,
                           const mnist_dataset *data) {
  *scale = 1.0f / (255.0f * data->pixel_std);
  *shift = -data->pixel_mean / data->pixel_std;
}

void mnist_batch_fill(float *x, const mnist_split *split, const int *indices,
                      int n, float scale, float shift) {
  for (int j = 0; j < n; j++) {
    const uint8_t *image = split->images + (size_t)indices[j] * MNIST_PIXELS;
    float *column = x + (size_t)j * MNIST_PIXELS;
    for (int p = 0; p < MNIST_PIXELS; p++)
      column[p] = (float)image[p] * scale + shift;
  }
}
