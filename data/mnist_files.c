/* mnist_files.c: the file rule (see mnist_files.h): candidate names, which
 * are present, reading every present copy and comparing them. */
#include "data/mnist_files.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "generated/mnist_names.h" /* generated from data/mnist_names.txt */

_Static_assert(MNIST_NAME_PATTERNS >= 1 &&
                   MNIST_NAME_PATTERNS <= MNIST_FILE_MAX_CANDIDATES,
               "data/mnist_names.txt: expected 1 to 8 names");

static const struct {
  const char *stem, *kind, *title;
} files[MNIST_FILE_COUNT] = {
    [MNIST_TRAIN_IMAGES] = {"train-images", "idx3", "train images"},
    [MNIST_TRAIN_LABELS] = {"train-labels", "idx1", "train labels"},
    [MNIST_TEST_IMAGES] = {"t10k-images", "idx3", "test images"},
    [MNIST_TEST_LABELS] = {"t10k-labels", "idx1", "test labels"},
};

int mnist_file_candidates(void) {
  return MNIST_NAME_PATTERNS;
}

int mnist_file_candidate(char *path, size_t path_size, const char *dir,
                         enum mnist_file which, int k) {
  int n = snprintf(path, path_size, "%s/", dir);
  if (n < 0 || (size_t)n >= path_size) return -1;
  size_t at = (size_t)n;
  /* The pattern with STEM and KIND replaced. */
  for (const char *p = mnist_name_patterns[k]; *p;) {
    const char *piece = NULL;
    size_t skip = 1;
    if (strncmp(p, "STEM", 4) == 0)
      piece = files[which].stem, skip = 4;
    else if (strncmp(p, "KIND", 4) == 0)
      piece = files[which].kind, skip = 4;
    size_t len = piece ? strlen(piece) : 1;
    if (at + len >= path_size) return -1;
    memcpy(path + at, piece ? piece : p, len);
    at += len;
    p += skip;
  }
  path[at] = '\0';
  return 0;
}

const char *mnist_stat_hint(int error) {
  switch (error) {
  case EACCES:
    return "check the permissions of this path and of the folders above it";
  case ELOOP:
    return "a symbolic link on the way points back at itself (a loop); "
           "fix or remove the link";
  case ENOTDIR:
    return "a part of the path is a regular file, not a folder; check the "
           "path";
  case ENAMETOOLONG: return "the path is too long; use a shorter one";
  default: return "check the path";
  }
}

enum idx_status mnist_file_find(unsigned *present, const char *dir,
                                enum mnist_file which, idx_error *err) {
  char path[4096];
  int dangling = -1; /* the first name that is a link to nothing */
  *present = 0;
  for (int k = 0; k < MNIST_NAME_PATTERNS; k++) {
    if (mnist_file_candidate(path, sizeof path, dir, which, k) != 0)
      return idx_fail(err, IDX_ERR_OPEN,
                      "%s: expected a folder path short enough to hold the "
                      "file names (under %zu bytes), found a longer one",
                      dir, sizeof path - 32);
    struct stat info;
    if (stat(path, &info) == 0) {
      *present |= 1u << k;
    } else if (errno == ENOENT) {
      if (dangling < 0 && lstat(path, &info) == 0 && S_ISLNK(info.st_mode))
        dangling = k;
    } else {
      int error = errno;
      return idx_fail(err, IDX_ERR_OPEN,
                      "%s: expected a readable path for the %s file, found "
                      "one that cannot be looked at (%s); hint: %s",
                      path, files[which].title, strerror(error),
                      mnist_stat_hint(error));
    }
  }
  if (*present) return IDX_OK;
  if (dangling >= 0) {
    char target[1024];
    mnist_file_candidate(path, sizeof path, dir, which, dangling);
    ssize_t n = readlink(path, target, sizeof target - 1);
    target[n > 0 ? n : 0] = '\0';
    return idx_fail(err, IDX_ERR_OPEN,
                    "%s: expected the %s file, found a dangling symbolic link "
                    "(to '%s', which does not exist); hint: fix or remove the "
                    "link, or fetch the data with scripts/download_mnist.sh %s",
                    path, files[which].title, target, dir);
  }
  /* None: name the first candidate and list the others. */
  char others[1024] = "";
  size_t at = 0;
  for (int k = 1; k < MNIST_NAME_PATTERNS && at < sizeof others; k++) {
    mnist_file_candidate(path, sizeof path, ".", which, k);
    at += (size_t)snprintf(others + at, sizeof others - at, "%s%s",
                           k > 1 ? ", " : "", path + 2);
  }
  mnist_file_candidate(path, sizeof path, dir, which, 0);
  return idx_fail(err, IDX_ERR_OPEN,
                  "%s: expected the %s file (or %s) in %s, found none; hint: "
                  "fetch the data with scripts/download_mnist.sh %s",
                  path, files[which].title,
                  others[0] ? others : "no other name", dir, dir);
}

/* Where two arrays differ, for a human; 0 when they are the same. */
static int describe_difference(char *text, size_t size, const idx_array *a,
                               const idx_array *b) {
  int same_header = a->type == b->type && a->rank == b->rank &&
                    memcmp(a->dims, b->dims, sizeof a->dims) == 0;
  if (!same_header) {
    int at = snprintf(text, size, "type 0x%02x, dims", (unsigned)a->type);
    for (int d = 0; d < a->rank && at > 0 && (size_t)at < size; d++)
      at += snprintf(text + at, size - (size_t)at, "%s%u", d ? "x" : " ",
                     a->dims[d]);
    if (at > 0 && (size_t)at < size)
      at += snprintf(text + at, size - (size_t)at, " against type 0x%02x, dims",
                     (unsigned)b->type);
    for (int d = 0; d < b->rank && at > 0 && (size_t)at < size; d++)
      at += snprintf(text + at, size - (size_t)at, "%s%u", d ? "x" : " ",
                     b->dims[d]);
    return 1;
  }
  size_t bytes = a->count * a->element_size;
  for (size_t i = 0; i < bytes; i++)
    if (a->data[i] != b->data[i]) {
      snprintf(text, size, "same header, first difference at data byte %zu", i);
      return 1;
    }
  return 0;
}

enum idx_status mnist_file_read(idx_array *out, char *path, size_t path_size,
                                const char *dir, enum mnist_file which,
                                unsigned present, idx_check_fn check,
                                void *check_arg, idx_error *err) {
  memset(out, 0, sizeof *out);
  int first = -1;
  for (int k = 0; k < MNIST_NAME_PATTERNS; k++) {
    if (!(present & (1u << k))) continue;
    char name[4096];
    if (mnist_file_candidate(name, sizeof name, dir, which, k) != 0 ||
        (first < 0 && strlen(name) >= path_size)) {
      idx_array_destroy(out);
      return idx_fail(err, IDX_ERR_OPEN,
                      "%s: expected a folder path short enough to hold the "
                      "file names, found a longer one",
                      dir);
    }
    idx_array copy;
    enum idx_status status =
        idx_read_checked(&copy, name, check, check_arg, err);
    if (status != IDX_OK) {
      idx_array_destroy(out);
      return status;
    }
    if (first < 0) {
      first = k;
      *out = copy;
      snprintf(path, path_size, "%s", name);
      continue;
    }
    char difference[160];
    int differ = describe_difference(difference, sizeof difference, out, &copy);
    idx_array_destroy(&copy);
    if (differ) {
      idx_array_destroy(out);
      return idx_fail(err, IDX_ERR_CONTENT,
                      "%s and %s hold different data (%s); expected every "
                      "copy of the %s file to be the same; hint: "
                      "scripts/download_mnist.sh %s keeps the published copy "
                      "and moves the other aside (as NAME.unverified), or "
                      "remove the one you do not want",
                      path, name, difference, files[which].title, dir);
    }
  }
  if (first < 0)
    return idx_fail(err, IDX_ERR_OPEN, "%s: expected the %s file, found none",
                    dir, files[which].title);
  return IDX_OK;
}
