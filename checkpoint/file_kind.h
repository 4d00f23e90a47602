/* file_kind.h: what a file is, in words, for the messages of checkpoint/'s
 * readers and writers that refuse anything but a regular file (a FIFO
 * would block them, a device has no end). Plain C. */
#ifndef MNIST_EPILOGS_FILE_KIND_H
#define MNIST_EPILOGS_FILE_KIND_H

#include <sys/types.h>

/* "a folder", "a FIFO", "a character device", "a block device", "a
 * socket", else "something other than a regular file" (st_mode of stat). */
const char *file_kind_name(mode_t mode);

#endif
