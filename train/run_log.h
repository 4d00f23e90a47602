/* run_log.h: the --log CSV of mnist_train, written so that no run destroys
 * a file it did not replace: rows go to a temporary file beside the named
 * one (beside its target, for a symbolic link), flushed to disk and renamed
 * over it only when training has run (ended, or stopped because the loss
 * diverged), keeping the old file's mode. A run that fails before or
 * during training removes its temporary and leaves the named file as it
 * was; a run killed by a signal leaves FILE.partial-XXXXXX beside it (the
 * rows so far), never a half-written FILE. Plain C. */
#ifndef MNIST_EPILOGS_RUN_LOG_H
#define MNIST_EPILOGS_RUN_LOG_H

#include <stddef.h>

typedef struct run_log run_log;

/* Checks, creating nothing, that a log can be written at `path`: its
 * folder exists and is writable, and `path` is not a folder. Returns 0, or
 * -1 with `err` naming the path and the reason. */
int run_log_check(const char *path, char *err, size_t err_size);

/* Creates the temporary (`path`.partial-XXXXXX, same folder) and writes
 * `header` and a newline. Returns 0, or -1 with a message on stderr. */
int run_log_open(run_log **out, const char *path, const char *header);

/* Appends one printf-formatted line (and a newline), flushed. Returns 0 or
 * -1 (a write error, remembered for run_log_commit). */
int run_log_printf(run_log *log, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

/* Closes the temporary and renames it over `path`. Returns 0, or -1 with a
 * message on stderr (the temporary removed, `path` untouched). Frees log. */
int run_log_commit(run_log *log);

/* Removes the temporary, leaving `path` as it was; frees log. A no-op on
 * NULL. */
void run_log_discard(run_log *log);

#endif
