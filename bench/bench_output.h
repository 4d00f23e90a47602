/* bench_output.h: mnist_bench's output file (--json): checked before any
 * GPU work, then replaced whole: written to a temporary beside it, flushed
 * to disk and renamed over it, so that a failed or killed run never leaves
 * a half-written file. Plain C. */
#ifndef MNIST_EPILOGS_BENCH_OUTPUT_H
#define MNIST_EPILOGS_BENCH_OUTPUT_H

#include <stddef.h>

/* Checks, creating nothing, that `path` can be replaced: a file name (not
 * a folder; if it exists, a regular file: not a FIFO, device or socket) in
 * an existing, writable folder. Returns 0, or -1 with `err` naming `flag`
 * and `path`, what was expected and what was found. */
int bench_output_check(const char *flag, const char *path, char *err,
                       size_t err_size);

/* Writes `text` and a newline to `path`.partial-XXXXXX beside `path`
 * (beside its target, for a symbolic link), fsyncs and renames it over the
 * file. Returns 0, or -1 with a message on stderr, the file untouched and
 * no temporary left. */
int bench_output_replace(const char *path, const char *text);

#endif
