/* mnist_files.h: the one rule for which MNIST file is read (the downloader,
 * scripts/download_mnist.sh, follows the same rule, so they never disagree).
 *
 * For each of the four files the candidate names in a folder DIR are those
 * of data/mnist_names.txt, in its order (STEM-KIND-ubyte.gz,
 * STEM-KIND-ubyte, STEM.KIND-ubyte.gz, STEM.KIND-ubyte: e.g.
 * train-images-idx3-ubyte.gz ... train-images.idx3-ubyte); the scripts read
 * the same list. gzip is recognised by content, never by name. Every candidate
 * is looked at; every present one is read (an unreadable or malformed one is an
 * error even when another copy is fine); two present copies holding
 * different idx data are an error naming both; otherwise the first present
 * candidate is the file read.
 *
 * Owns: nothing beyond the idx_array it hands back. mnist.c uses it.
 */
#ifndef MNIST_EPILOGS_MNIST_FILES_H
#define MNIST_EPILOGS_MNIST_FILES_H

#include <stddef.h>

#include "data/idx.h"
#include "data/mnist.h"

/* The most candidate names data/mnist_names.txt may list (bits of a mask). */
#define MNIST_FILE_MAX_CANDIDATES 8

/* How many candidate names each file has (the lines of mnist_names.txt). */
int mnist_file_candidates(void);

/* Writes candidate `k` (0 .. mnist_file_candidates() - 1, in the rule's
 * order) of file `which` in `dir` to `path`. Returns 0, or -1 when the name
 * does not fit in path_size. */
int mnist_file_candidate(char *path, size_t path_size, const char *dir,
                         enum mnist_file which, int k);

/* stat()s every candidate of `which` in `dir`; sets bit k of *present for
 * each candidate k that exists. Returns IDX_OK (one or more present), or
 * IDX_ERR_OPEN: a stat failure other than "does not exist" (naming the path
 * and the reason), or none present (naming the expected name and
 * scripts/download_mnist.sh DIR, or the dangling symbolic link that was
 * the only candidate there). */
enum idx_status mnist_file_find(unsigned *present, const char *dir,
                                enum mnist_file which, idx_error *err);

/* A hint for a stat() failure with errno `error` (permissions, a symlink
 * loop, a path through a regular file, ...). */
const char *mnist_stat_hint(int error);

/* Reads every candidate in `present` (from mnist_file_find) with
 * idx_read_checked(check, check_arg); all must hold the same idx data, else
 * IDX_ERR_CONTENT naming two that differ. *out = the first one's array and
 * `path` (path_size bytes) its name. On error *out is left empty. */
enum idx_status mnist_file_read(idx_array *out, char *path, size_t path_size,
                                const char *dir, enum mnist_file which,
                                unsigned present, idx_check_fn check,
                                void *check_arg, idx_error *err);

#endif
