/* bench_output.h: mnist_bench's output file (--json): checked before any
 * GPU work by the rules --log and --save follow (checkpoint/write_target.h)
 * and again at the end, then replaced whole: written to a temporary beside it,
 * flushed to disk and renamed over it, so that a failed or killed run never
 * leaves a half-written file. Plain C. */
#ifndef MNIST_EPILOGS_BENCH_OUTPUT_H
#define MNIST_EPILOGS_BENCH_OUTPUT_H

#include <stddef.h>

/* Checks that `path` can be replaced, by the rules of --log and --save
 * (write_target_check: a non-empty name; if it exists, a regular file that
 * opens for writing; a temporary can be made beside it, and is removed).
 * Returns 0, or -1 with `err` naming `flag` and `path`, what was expected
 * and what was found. */
int bench_output_check(const char *flag, const char *path, char *err,
                       size_t err_size);

/* Writes `text` and a newline to `path` by write_target_commit: a
 * temporary beside it (beside its target, for a symbolic link, which stays
 * a link), fsynced, `path` checked again, renamed over the file. Returns 0, or
 * -1 with a message on stderr, the file untouched and no temporary left. */
int bench_output_replace(const char *path, const char *text);

#endif
