/* write_target.h: the rules for a file a program replaces by renaming a
 * temporary over it (mnist_train's --log and --save). Checked before
 * anything runs: an existing target (a symbolic link followed) must be a
 * regular file that opens for writing, and a file must be creatable
 * beside it; checked again just before the rename, since the target can
 * change during a run. Lives in checkpoint/, the lowest library that both
 * writers (train/run_log.c, checkpoint/safetensors_write.c) link. Plain C. */
#ifndef MNIST_EPILOGS_WRITE_TARGET_H
#define MNIST_EPILOGS_WRITE_TARGET_H

#include <stddef.h>

/* 0 when a file can replace `path`: it is absent or a regular file that
 * opens for writing (probed without truncating), and a temporary can be
 * created (and is removed) beside it. Else -1 with `err` starting with
 * `label` (e.g. "--save") and the path, then what was expected and found. */
int write_target_check(const char *label, const char *path, char *err,
                       size_t err_size);

/* Just before the rename: 0 when `path` is absent or (a symbolic link
 * followed) a regular file; else -1 with `err` as above. Creates nothing. */
int write_target_recheck(const char *label, const char *path, char *err,
                         size_t err_size);

/* 1 when `a` and `b` name the same file (the same inode, or, for a file
 * not yet there, the same resolved folder and name); else 0. */
int write_target_same(const char *a, const char *b);

#endif
