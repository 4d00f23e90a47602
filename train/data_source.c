/* data_source.c: where the data comes from (data_source.h). */
#include "train/data_source.h"

#include "checkpoint/write_target.h"
#include "data/mnist_files.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int is_dir(const char *path) {
  struct stat info;
  return stat(path, &info) == 0 && S_ISDIR(info.st_mode);
}

int data_source_find(char *out, size_t size, const char *given,
                     const char *source_dir, char *err, size_t err_size) {
  const char *env = getenv("MNIST_DIR");
  char in_source[4096];
  snprintf(in_source, sizeof in_source, "%s/data/mnist", source_dir);
  const char *found = given                  ? given
                      : env && *env          ? env
                      : is_dir("data/mnist") ? "data/mnist"
                      : is_dir(in_source)    ? in_source
                                             : NULL;
  if (found) {
    snprintf(out, size, "%s", found);
    return 0;
  }
  if (!err) return -1;
  snprintf(err, err_size,
           "no MNIST data: looked in data/mnist and %s (and $MNIST_DIR is "
           "unset)\n"
           "  fetch it with: %s/scripts/download_mnist.sh data/mnist\n"
           "  or point --data-dir at a folder holding the four idx files",
           in_source, source_dir);
  return -1;
}

int data_source_load(mnist_dataset *out, char *dir, size_t dir_size,
                     const char *given, const char *source_dir, int test_only,
                     char *err, size_t err_size) {
  if (data_source_find(dir, dir_size, given, source_dir, err, err_size) != 0)
    return -1;
  idx_error failure;
  enum idx_status status = test_only ? mnist_test_load(out, dir, &failure)
                                     : mnist_dataset_load(out, dir, &failure);
  if (status == IDX_OK) return 0;
  const char *env = getenv("MNIST_DIR");
  int from_env = !given && env && *env && strcmp(env, dir) == 0;
  snprintf(err, err_size, "%s%s%s%s", failure.message,
           from_env ? "\n  (the folder " : "", from_env ? dir : "",
           from_env ? " came from $MNIST_DIR: fix or unset it, or give "
                      "--data-dir DIR)"
                    : "");
  return -1;
}

int data_source_check_output(const char *flag, const char *path,
                             const char *dir, char *err, size_t err_size) {
  char candidate[4200];
  for (int f = 0; f < MNIST_FILE_COUNT; f++)
    for (int k = 0; k < mnist_file_candidates(); k++) {
      if (mnist_file_candidate(candidate, sizeof candidate, dir,
                               (enum mnist_file)f, k) != 0 ||
          !write_target_same(path, candidate))
        continue;
      snprintf(err, err_size,
               "%s %s: expected a file other than the data the run reads, "
               "found the MNIST file %s of the data folder %s",
               flag, path, candidate, dir);
      return -1;
    }
  return 0;
}
