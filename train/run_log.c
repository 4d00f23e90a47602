/* run_log.c: the --log CSV, kept in memory and replaced atomically
 * (run_log.h). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "train/run_log.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* Writes the rows to a new temporary beside `target` with `mode`; fills
 * `partial`. Returns 0, or -1 with a message (no temporary left). */
static int write_partial(char *partial, size_t size, const char *target,
                         mode_t mode, const run_log *log) {
  snprintf(partial, size, "%s.partial-XXXXXX", target);
  int fd = mkstemp(partial);
  if (fd < 0) {
    fprintf(stderr, "run_log: cannot create %s (%s)\n", partial,
            strerror(errno));
    return -1;
  }
  /* mkstemp makes the file 0600. */
  if (fchmod(fd, mode) != 0)
    fprintf(stderr, "run_log: note: could not set the mode of %s (%s)\n",
            partial, strerror(errno));
  size_t done = 0;
  while (done < log->length) {
    ssize_t wrote = write(fd, log->text + done, log->length - done);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) break;
    done += (size_t)wrote;
  }
  int ok = done == log->length && fsync(fd) == 0;
  int saved = errno;
  if (close(fd) != 0) ok = 0;
  if (ok) return 0;
  fprintf(stderr, "run_log: writing %s failed (%s); %s left as it was\n",
          partial, strerror(saved), target);
  unlink(partial);
  return -1;
}

int run_log_commit(run_log *log) {
  /* A log that is a symbolic link is replaced where the link points, so
   * the link stays a link. */
  char target[PATH_MAX], partial[PATH_MAX + 32], err[PATH_MAX + 256];
  if (!realpath(log->path, target))
    snprintf(target, sizeof target, "%s", log->path);
  if (log->failed) {
    fprintf(stderr,
            "run_log: out of host memory for the rows; %s left as "
            "it was\n",
            log->path);
    run_log_discard(log);
    return -1;
  }
  /* The mode of the file it replaces, or an ordinary file's (0666 under
   * the user's umask). */
  struct stat old;
  mode_t mask = umask(0);
  umask(mask);
  mode_t mode = stat(target, &old) == 0 ? old.st_mode & 07777 : 0666 & ~mask;
  int status = write_target_recheck("--log", target, err, sizeof err);
  if (status != 0) fprintf(stderr, "run_log: %s\n", err);
  if (status == 0)
    status = write_partial(partial, sizeof partial, target, mode, log);
  if (status == 0 && rename(partial, target) != 0) {
    fprintf(stderr, "run_log: cannot rename %s to %s (%s)\n", partial, target,
            strerror(errno));
    unlink(partial);
    status = -1;
  }
  run_log_discard(log);
  return status;
}

void run_log_discard(run_log *log) {
  if (!log) return;
  free(log->text);
  free(log);
}
