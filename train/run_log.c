/* run_log.c: the --log CSV, replaced atomically (run_log.h). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "train/run_log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct run_log {
  FILE *file;
  char path[4096];    /* the file it replaces */
  char partial[4200]; /* the temporary beside it */
  int failed;         /* a write failed */
};

/* The folder of `path` ("." when it has none). */
static void folder_of(char *out, size_t size, const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash)
    snprintf(out, size, ".");
  else if (slash == path)
    snprintf(out, size, "/");
  else
    snprintf(out, size, "%.*s", (int)(slash - path), path);
}

int run_log_check(const char *path, char *err, size_t err_size) {
  char folder[4096];
  struct stat info;
  folder_of(folder, sizeof folder, path);
  if (stat(path, &info) == 0 && S_ISDIR(info.st_mode)) {
    snprintf(err, err_size, "--log %s: expected a file name, found a folder",
             path);
    return -1;
  }
  if (stat(folder, &info) != 0) {
    snprintf(err, err_size,
             "--log %s: expected an existing folder %s for it, found none "
             "(%s)",
             path, folder, strerror(errno));
    return -1;
  }
  if (!S_ISDIR(info.st_mode)) {
    snprintf(err, err_size,
             "--log %s: expected %s to be a folder, found a file", path,
             folder);
    return -1;
  }
  if (access(folder, W_OK | X_OK) != 0) {
    snprintf(err, err_size, "--log %s: cannot write in folder %s (%s)", path,
             folder, strerror(errno));
    return -1;
  }
  return 0;
}

int run_log_open(run_log **out, const char *path, const char *header) {
  *out = NULL;
  run_log *log = calloc(1, sizeof *log);
  if (!log) {
    fprintf(stderr, "run_log: out of host memory\n");
    return -1;
  }
  /* A log that is a symbolic link is replaced where the link points, so
   * the link stays a link. */
  char target[4096];
  if (!realpath(path, target)) snprintf(target, sizeof target, "%s", path);
  snprintf(log->path, sizeof log->path, "%s", target);
  snprintf(log->partial, sizeof log->partial, "%s.partial-XXXXXX", target);
  int fd = mkstemp(log->partial);
  if (fd < 0) {
    fprintf(stderr, "run_log: cannot create %s (%s)\n", log->partial,
            strerror(errno));
    free(log);
    return -1;
  }
  /* mkstemp makes the file 0600: give it the mode of the file it replaces,
   * or an ordinary file's (0666 under the user's umask). */
  struct stat old;
  mode_t mask = umask(0);
  umask(mask);
  mode_t mode = stat(log->path, &old) == 0 ? old.st_mode & 07777 : 0666 & ~mask;
  if (fchmod(fd, mode) != 0)
    fprintf(stderr, "run_log: note: could not set the mode of %s (%s)\n",
            log->partial, strerror(errno));
  log->file = fdopen(fd, "w");
  if (!log->file) {
    close(fd);
    run_log_discard(log);
    return -1;
  }
  *out = log;
  return run_log_printf(log, "%s", header);
}

int run_log_printf(run_log *log, const char *format, ...) {
  va_list args;
  va_start(args, format);
  int wrote = vfprintf(log->file, format, args);
  va_end(args);
  if (wrote < 0 || fputc('\n', log->file) == EOF || fflush(log->file) != 0)
    log->failed = 1;
  return log->failed ? -1 : 0;
}

int run_log_commit(run_log *log) {
  /* On disk before it replaces anything. */
  int synced = fflush(log->file) == 0 && fsync(fileno(log->file)) == 0;
  int closed = fclose(log->file);
  log->file = NULL;
  if (closed != 0 || !synced || log->failed) {
    fprintf(stderr, "run_log: writing %s failed; %s left as it was\n",
            log->partial, log->path);
    run_log_discard(log);
    return -1;
  }
  if (rename(log->partial, log->path) != 0) {
    fprintf(stderr, "run_log: cannot rename %s to %s (%s)\n", log->partial,
            log->path, strerror(errno));
    run_log_discard(log);
    return -1;
  }
  free(log);
  return 0;
}

void run_log_discard(run_log *log) {
  if (!log) return;
  if (log->file) fclose(log->file);
  remove(log->partial);
  free(log);
}
