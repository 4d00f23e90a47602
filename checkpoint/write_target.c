/* write_target.c: see write_target.h. */
#define _XOPEN_SOURCE 700 /* realpath, readlink, lstat */
#include "checkpoint/write_target.h"

#include "checkpoint/file_kind.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a messages names: "LABEL PATH", or PATH when label is NULL or "". */
typedef struct named {
  char text[PATH_MAX + 64];
} named;

static named name_of(const char *label, const char *path) {
  named n;
  snprintf(n.text, sizeof n.text, "%.63s%s%.*s", label ? label : "",
           label && label[0] ? " " : "", PATH_MAX - 1, path);
  return n;
}

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

/* -1, with `err`: what `name` is instead of a regular file. */
static int not_regular(const named *name, mode_t mode, char *err,
                       size_t err_size) {
  if (S_ISDIR(mode))
    snprintf(err, err_size, "%s: expected a file name, found a folder",
             name->text);
  else
    snprintf(err, err_size,
             "%s: expected a regular file to replace, found %s; it is left "
             "as it is",
             name->text, file_kind_name(mode));
  return -1;
}

/* An existing regular file: opens it for writing without truncating (an
 * immutable or append-only file refuses, even to root). */
static int probe_open(const named *name, const char *path, char *err,
                      size_t err_size) {
  int fd = open(path, O_WRONLY | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) {
    snprintf(err, err_size,
             "%s: expected a file it may replace, found one that does not "
             "open for writing (%s)",
             name->text, strerror(errno));
    return -1;
  }
  struct stat info;
  int regular = fstat(fd, &info) == 0 && S_ISREG(info.st_mode);
  close(fd);
  return regular ? 0 : not_regular(name, info.st_mode, err, err_size);
}

/* Creates and removes a temporary beside `path`, as the writer will. */
static int probe_folder(const named *name, const char *path, char *err,
                        size_t err_size) {
  char folder[PATH_MAX], probe[PATH_MAX + 32];
  struct stat info;
  folder_of(folder, sizeof folder, path);
  int found = stat(folder, &info) == 0;
  if (!found || !S_ISDIR(info.st_mode)) {
    snprintf(err, err_size, "%s: expected a writable folder '%s', found %s",
             name->text, folder, found ? "a file" : strerror(errno));
    return -1;
  }
  /* The commit's own name: a name that fits the probe fits the commit. */
  snprintf(probe, sizeof probe, "%s" WRITE_TARGET_TEMPORARY, path);
  int fd = mkstemp(probe);
  if (fd < 0 && errno == ENAMETOOLONG) {
    snprintf(err, err_size,
             "%s: expected a name that leaves room for its temporary (the "
             "name and \"%s\"), found one too long (%s)",
             name->text, WRITE_TARGET_TEMPORARY, strerror(errno));
    return -1;
  }
  if (fd < 0) {
    snprintf(err, err_size,
             "%s: expected a folder where files can be made, found that no "
             "file can be created in '%s' (%s)",
             name->text, folder, strerror(errno));
    return -1;
  }
  close(fd);
  unlink(probe);
  return 0;
}

/* The file `path` names, into target[PATH_MAX]: `path` itself, or, for a
 * symbolic link, where its chain of links ends (a name relative to the
 * link's folder; the end need not exist). 0, or -1 with `err`. */
static int follow_links(char *target, const named *name, const char *path,
                        char *err, size_t err_size) {
  char link[PATH_MAX], folder[PATH_MAX];
  snprintf(target, PATH_MAX, "%.*s", PATH_MAX - 1, path);
  for (int hop = 0; hop < 40; hop++) {
    struct stat info;
    if (lstat(target, &info) != 0 || !S_ISLNK(info.st_mode)) return 0;
    ssize_t length = readlink(target, link, sizeof link - 1);
    if (length < 0) break;
    link[length] = '\0';
    folder_of(folder, sizeof folder, target);
    int need = link[0] == '/'
                   ? snprintf(target, PATH_MAX, "%s", link)
                   : snprintf(target, PATH_MAX, "%s/%s", folder, link);
    if (need >= PATH_MAX) break;
  }
  snprintf(err, err_size,
           "%s: expected a symbolic link that ends at a file name, found a "
           "loop, a link that cannot be read or a name too long",
           name->text);
  return -1;
}

/* 0 when the resolved `target` is absent or a regular file. */
static int recheck_target(const named *name, const char *target, char *err,
                          size_t err_size) {
  struct stat info;
  if (stat(target, &info) != 0) {
    if (errno == ENOENT) return 0;
    snprintf(err, err_size, "%s: expected a file name, found %s", name->text,
             strerror(errno));
    return -1;
  }
  return S_ISREG(info.st_mode) ? 0
                               : not_regular(name, info.st_mode, err, err_size);
}

int write_target_check(const char *label, const char *path, char *err,
                       size_t err_size) {
  named name = name_of(label, path);
  char target[PATH_MAX];
  struct stat info;
  if (follow_links(target, &name, path, err, err_size) != 0) return -1;
  if (stat(target, &info) == 0) {
    if (!S_ISREG(info.st_mode))
      return not_regular(&name, info.st_mode, err, err_size);
    if (probe_open(&name, target, err, err_size) != 0) return -1;
  } else if (errno != ENOENT) {
    snprintf(err, err_size, "%s: expected a file name, found %s", name.text,
             strerror(errno));
    return -1;
  }
  return probe_folder(&name, target, err, err_size);
}

int write_target_recheck(const char *label, const char *path, char *err,
                         size_t err_size) {
  named name = name_of(label, path);
  char target[PATH_MAX];
  if (follow_links(target, &name, path, err, err_size) != 0) return -1;
  return recheck_target(&name, target, err, err_size);
}

/* The mode of the file being replaced, or an ordinary file's (0666 under
 * the umask); mkstemp makes the temporary 0600. */
static mode_t mode_for(const char *target) {
  struct stat old;
  mode_t mask = umask(0);
  umask(mask);
  /* The permission bits and the sticky bit; never set-user or set-group
   * ID onto a file this program wrote. */
  return stat(target, &old) == 0 ? old.st_mode & 01777 : 0666 & ~mask;
}

/* fsync of the folder holding `target`, so that the rename is durable; a
 * failure here loses nothing already written, so it is not reported. */
static void sync_folder(const char *target) {
  char folder[PATH_MAX];
  folder_of(folder, sizeof folder, target);
  int fd = open(folder, O_RDONLY | O_DIRECTORY);
  if (fd < 0) return;
  (void)fsync(fd);
  close(fd);
}

/* Fills the temporary open as `fd` (made by mkstemp) with what `writer`
 * writes, with `mode`, flushed, fsynced and closed: 0 or an errno. */
static int write_partial(int fd, mode_t mode, write_target_writer writer,
                         void *arg) {
  (void)fchmod(fd, mode); /* refused on some file systems: not fatal */
  FILE *file = fdopen(fd, "wb");
  if (!file) {
    int saved = errno;
    close(fd);
    return saved;
  }
  errno = 0;
  int err_no = 0;
  if (writer(file, arg) != 0 || fflush(file) != 0 || fsync(fd) != 0)
    err_no = errno ? errno : EIO;
  errno = 0;
  if (fclose(file) != 0 && !err_no) err_no = errno ? errno : EIO;
  return err_no;
}

int write_target_commit(const char *label, const char *path,
                        write_target_writer writer, void *arg, char *err,
                        size_t err_size) {
  named name = name_of(label, path);
  char target[PATH_MAX], partial[PATH_MAX + 32];
  if (follow_links(target, &name, path, err, err_size) != 0 ||
      recheck_target(&name, target, err, err_size) != 0)
    return -1;
  snprintf(partial, sizeof partial, "%s" WRITE_TARGET_TEMPORARY, target);
  int fd = mkstemp(partial);
  if (fd < 0) {
    snprintf(err, err_size,
             "%s: cannot create the temporary %s (%s); left as it was",
             name.text, partial, strerror(errno));
    return -1;
  }
  int err_no = write_partial(fd, mode_for(target), writer, arg);
  if (!err_no && recheck_target(&name, target, err, err_size) != 0) {
    unlink(partial);
    return -1;
  }
  if (!err_no && rename(partial, target) != 0) err_no = errno;
  if (err_no) {
    unlink(partial);
    snprintf(err, err_size, "%s: cannot write it (%s); left as it was",
             name.text, strerror(err_no));
    return -1;
  }
  sync_folder(target);
  return 0;
}

/* `path` resolved into out[PATH_MAX]: the realpath of the file, or of its
 * folder followed by its name. */
static void canonical(char *out, const char *path) {
  char folder[PATH_MAX], real[PATH_MAX];
  if (realpath(path, out)) return;
  folder_of(folder, sizeof folder, path);
  const char *slash = strrchr(path, '/');
  if (realpath(folder, real))
    snprintf(out, PATH_MAX, "%.*s/%.255s", PATH_MAX - 257, real,
             slash ? slash + 1 : path);
  else
    snprintf(out, PATH_MAX, "%.*s", PATH_MAX - 1, path);
}

/* Where `path` ends after its links, as the commit resolves it (`path`
 * itself when its chain cannot be followed: the checks refuse that). */
static void resolved(char *out, const char *path) {
  char ignored[64];
  named name = name_of(NULL, path);
  if (follow_links(out, &name, path, ignored, sizeof ignored) != 0)
    snprintf(out, PATH_MAX, "%.*s", PATH_MAX - 1, path);
}

int write_target_same(const char *a, const char *b) {
  char ta[PATH_MAX], tb[PATH_MAX];
  resolved(ta, a); /* a link to a file not there yet ends where the */
  resolved(tb, b); /* commit will write, as does a plain name */
  struct stat sa, sb;
  if (stat(ta, &sa) == 0 && stat(tb, &sb) == 0)
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  char ra[PATH_MAX], rb[PATH_MAX];
  canonical(ra, ta);
  canonical(rb, tb);
  return strcmp(ra, rb) == 0;
}
