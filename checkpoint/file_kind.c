/* file_kind.c: see file_kind.h. */
#include "checkpoint/file_kind.h"

#include <sys/stat.h>

const char *file_kind_name(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "something other than a regular file";
}
