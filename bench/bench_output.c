/* bench_output.c: mnist_bench's output file, checked early and replaced
 * atomically (bench_output.h). */
#define _XOPEN_SOURCE 700 /* realpath */
#include "bench/bench_output.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a file that is not a regular file or a folder is, in words. */
static const char *kind_of(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "a special file";
}

int bench_output_check(const char *flag, const char *path, char *err,
                       size_t err_size) {
  struct stat info;
  if (path[0] == '\0') {
    snprintf(err, err_size, "%s: expected a file name, found ''", flag);
    return -1;
  }
  if (stat(path, &info) == 0 && S_ISDIR(info.st_mode)) {
    snprintf(err, err_size, "%s %s: expected a file name, found a folder", flag,
             path);
    return -1;
  }
  if (stat(path, &info) == 0 && !S_ISREG(info.st_mode)) {
    snprintf(err, err_size,
             "%s %s: expected a regular file to replace, found %s", flag, path,
             kind_of(info.st_mode));
    return -1;
  }
  /* The folder the temporary will be made in: the link target's, for a
   * symbolic link. */
  char target[4096], folder[4096];
  if (!realpath(path, target)) snprintf(target, sizeof target, "%s", path);
  snprintf(folder, sizeof folder, "%s", target);
  char *slash = strrchr(folder, '/');
  if (slash)
    slash[slash == folder ? 1 : 0] = '\0'; /* "/x" -> "/", "a/x" -> "a" */
  else
    snprintf(folder, sizeof folder, ".");
  errno = 0;
  if (stat(folder, &info) != 0 || !S_ISDIR(info.st_mode)) {
    snprintf(err, err_size,
             "%s %s: expected an existing folder '%s' for it, found %s", flag,
             path, folder,
             errno == ENOENT ? "none"
             : errno         ? strerror(errno)
                             : "a file");
    return -1;
  }
  if (access(folder, W_OK | X_OK) != 0) {
    snprintf(err, err_size,
             "%s %s: expected a writable folder '%s', found it is not (%s)",
             flag, path, folder, strerror(errno));
    return -1;
  }
  return 0;
}

int bench_output_replace(const char *path, const char *text) {
  char target[4096], partial[4200];
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
  if (!written || rename(partial, target) != 0) {
    fprintf(stderr, "bench_output: cannot write %s (%s); %s left as it was\n",
            written ? target : partial, strerror(written ? errno : saved),
            path);
    remove(partial);
    return -1;
  }
  return 0;
}
