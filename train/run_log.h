/* run_log.h: the --log CSV of mnist_train, written so that no run destroys
 * a file it did not replace: the rows are kept in memory, and only when
 * training has run (ended, or stopped because the loss diverged) are they
 * written to a temporary beside the named file (beside its target, for a
 * symbolic link, which stays a link), flushed to disk and renamed over it,
 * keeping the old file's mode (checkpoint/write_target.h: the rule --save
 * and mnist_bench's --json follow too). A run that fails, is interrupted or is
 * killed before that leaves the named file as it was and no temporary; only a
 * kill during the commit itself (milliseconds) can leave FILE.partial-XXXXXX.
 * Plain C. */
#ifndef MNIST_EPILOGS_RUN_LOG_H
#define MNIST_EPILOGS_RUN_LOG_H

#include <stddef.h>

typedef struct run_log run_log;

/* Checks, creating nothing that stays, that a log can replace `path`
 * (checkpoint/write_target.h). Returns 0, or -1 with `err` naming the
 * path and the reason. */
int run_log_check(const char *path, char *err, size_t err_size);

/* Starts a log for `path` in memory with `header` and a newline; creates
 * no file. Returns 0, or -1 with a message on stderr. */
int run_log_open(run_log **out, const char *path, const char *header);

/* Appends one printf-formatted line (and a newline) in memory. Returns 0
 * or -1 (out of memory, remembered for run_log_commit). */
int run_log_printf(run_log *log, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* Writes the rows to a temporary and renames it over `path` (a link
 * followed), if that is still absent or a regular file
 * (write_target_commit). Returns 0, or -1 with a message on
 * stderr (no temporary left, `path` untouched). Frees log. */
int run_log_commit(run_log *log);

/* Drops the rows, leaving `path` as it was; frees log. A no-op on NULL. */
void run_log_discard(run_log *log);

#endif
