/* bench_output.c: mnist_bench's output file, checked early and again at
 * the rename by the rules --log and --save follow (checkpoint/write_target.h),
 * and replaced atomically (bench_output.h). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "bench/bench_output.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "checkpoint/write_target.h"

int bench_output_check(const char *flag, const char *path, char *err,
                       size_t err_size) {
  if (path[0] != '\0') return write_target_check(flag, path, err, err_size);
  snprintf(err, err_size, "%s: expected a file name, found ''", flag);
  return -1;
}

int bench_output_replace(const char *path, const char *text) {
  char target[4096], partial[4200], err[8400];
  if (!realpath(path, target)) snprintf(target, sizeof target, "%s", path);
  snprintf(partial, sizeof partial, "%s.partial-XXXXXX", target);
  int fd = mkstemp(partial);
  if (fd < 0) {
    fprintf(stderr, "bench_output: cannot create %s (%s); %s left as it was\n",
            partial, strerror(errno), path);
    return -1;
  }
  /* mkstemp makes the file 0600: give it the mode of the file it replaces,
   * or an ordinary file's under the user's umask. */
  struct stat old;
  mode_t mask = umask(0);
  umask(mask);
  fchmod(fd, stat(target, &old) == 0 ? old.st_mode & 07777 : 0666 & ~mask);
  FILE *file = fdopen(fd, "w");
  int written = file && fputs(text, file) >= 0 && fputc('\n', file) != EOF &&
                fflush(file) == 0 && fsync(fd) == 0;
  int saved = errno;
  if (file ? fclose(file) != 0 : close(fd) != 0) written = 0;
  /* The target can have changed since bench_output_check: the same rule
   * again, just before the rename. */
  if (written && write_target_recheck("--json", path, err, sizeof err) != 0) {
    fprintf(stderr, "bench_output: %s\n", err);
    remove(partial);
    return -1;
  }
  if (!written || rename(partial, target) != 0) {
    fprintf(stderr, "bench_output: cannot write %s (%s); %s left as it was\n",
            written ? target : partial, strerror(written ? errno : saved),
            path);
    remove(partial);
    return -1;
  }
  return 0;
}
