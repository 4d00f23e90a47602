/* run_log.c: the --log CSV, kept in memory and replaced atomically
 * (run_log.h). */
#include "train/run_log.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint/write_target.h"

struct run_log {
  char path[PATH_MAX]; /* the file it replaces, as given */
  char *text;          /* the rows so far, '\0'-terminated */
  size_t length, capacity;
  int failed; /* a row could not be kept */
};

int run_log_check(const char *path, char *err, size_t err_size) {
  return write_target_check("--log", path, err, err_size);
}

int run_log_open(run_log **out, const char *path, const char *header) {
  *out = NULL;
  run_log *log = calloc(1, sizeof *log);
  if (!log) {
    fprintf(stderr, "run_log: out of host memory\n");
    return -1;
  }
  snprintf(log->path, sizeof log->path, "%s", path);
  *out = log;
  return run_log_printf(log, "%s", header);
}

int run_log_printf(run_log *log, const char *format, ...) {
  va_list args, again;
  va_start(args, format);
  va_copy(again, args);
  int need = vsnprintf(NULL, 0, format, args);
  va_end(args);
  size_t want = log->length + (need > 0 ? (size_t)need : 0) + 2;
  if (need >= 0 && want > log->capacity) {
    size_t capacity = want > 2 * log->capacity ? want : 2 * log->capacity;
    char *grown = realloc(log->text, capacity);
    if (grown) {
      log->text = grown;
      log->capacity = capacity;
    }
  }
  if (need < 0 || want > log->capacity) {
    log->failed = 1;
  } else {
    vsnprintf(log->text + log->length, (size_t)need + 1, format, again);
    log->length += (size_t)need;
    log->text[log->length++] = '\n';
    log->text[log->length] = '\0';
  }
  va_end(again);
  return log->failed ? -1 : 0;
}

/* write_target_writer: the rows. */
static int write_rows(FILE *file, void *arg) {
  const run_log *log = arg;
  return fwrite(log->text, 1, log->length, file) == log->length ? 0 : -1;
}

int run_log_commit(run_log *log) {
  char err[PATH_MAX + 256];
  int status = -1;
  if (log->failed)
    fprintf(stderr,
            "run_log: out of host memory for the rows; %s left as it was\n",
            log->path);
  else if ((status = write_target_commit("--log", log->path, write_rows, log,
                                         err, sizeof err)) != 0)
    fprintf(stderr, "run_log: %s\n", err);
  run_log_discard(log);
  return status;
}

void run_log_discard(run_log *log) {
  if (!log) return;
  free(log->text);
  free(log);
}
