/* write_target.h: the one rule for a file a program replaces (mnist_train's
 * --log and --save, mnist_bench's --json): a symbolic link is written
 * through (its target is replaced, the link stays a link), so every check
 * and the commit resolve the link first, the same way. Checked before
 * anything runs: an existing target must be a regular file that opens for
 * writing, and a file must be creatable beside it; the commit then writes
 * a temporary beside the target, fsyncs it, checks the target again (it
 * can change during a run), renames the temporary over it keeping its mode
 * and fsyncs the folder. Lives in checkpoint/, the lowest library that all
 * three writers (train/run_log.c, checkpoint/safetensors_write.c,
 * bench/bench_output.c) link. Plain C. */
#ifndef MNIST_EPILOGS_WRITE_TARGET_H
#define MNIST_EPILOGS_WRITE_TARGET_H

#include <stddef.h>
#include <stdio.h>

/* The temporary's suffix (mkstemp's template), beside the target: the
 * check's probe and the commit both use it, so a name the check passes is
 * never too long for the commit. */
#define WRITE_TARGET_TEMPORARY ".partial-XXXXXX"

/* 0 when a file can replace `path` (a symbolic link followed to the end,
 * also to a file not yet there): it is absent or a regular file that opens
 * for writing (probed without truncating), and a temporary can be created
 * (and is removed) beside it. Else -1 with `err` starting with `label`
 * (e.g. "--save") and the path, then what was expected and found. */
int write_target_check(const char *label, const char *path, char *err,
                       size_t err_size);

/* Just before the rename: 0 when `path` (a link followed) is absent or a
 * regular file; else -1 with `err` as above. Creates nothing. */
int write_target_recheck(const char *label, const char *path, char *err,
                         size_t err_size);

/* Writes a file's whole content to `file` (a new temporary). Returns 0, or
 * -1 with errno set when some of it could not be handed over. */
typedef int (*write_target_writer)(FILE *file, void *arg);

/* Replaces `path` (a link followed) by what `writer(file, arg)` writes: a
 * temporary beside the target with the old file's mode (else 0666 under
 * the umask), flushed and fsynced, the target rechecked, the rename, the
 * folder fsynced. Returns 0, or -1 with `err` as above; the target is then
 * as it was and no temporary is left. `label` may be NULL. */
int write_target_commit(const char *label, const char *path,
                        write_target_writer writer, void *arg, char *err,
                        size_t err_size);

/* 1 when `a` and `b` name the same file once their symbolic links are
 * followed as the commit follows them (the same inode, or, for a file not
 * yet there, the same resolved folder and name); else 0. */
int write_target_same(const char *a, const char *b);

#endif
