/* train_outputs.c: see train_outputs.h. */
#include "app/train_outputs.h"

#include <stdio.h>

#include "checkpoint/write_target.h"
#include "train/checkpoint_io.h"
#include "train/data_source.h"
#include "train/run_log.h"

/* -1 with `err`: `flag` PATH and `other` name one file. */
static int same_file(const char *flag, const char *path, const char *other,
                     const char *other_path, const char *why, char *err,
                     size_t err_size) {
  snprintf(err, err_size,
           "%s %s and %s %s: expected two files, found the same file named "
           "twice%s",
           flag, path, other, other_path, why);
  return -1;
}

int train_outputs_check(const train_options *o, const char *source_dir,
                        char *err, size_t err_size) {
  const char *log = o->log_path, *save = o->save_path;
  if ((log && run_log_check(log, err, err_size) != 0) ||
      (save && checkpoint_io_check_target(save, err, err_size) != 0))
    return -1;
  if (log && save && write_target_same(log, save))
    return same_file("--log", log, "--save", save, "", err, err_size);
  if (log && o->load_path && write_target_same(log, o->load_path))
    return same_file("--log", log, "--load", o->load_path,
                     " (the log would replace the checkpoint the run reads)",
                     err, err_size);
  char dir[4096];
  if (data_source_find(dir, sizeof dir, o->data_dir, source_dir, NULL, 0) != 0)
    return 0;
  if (log && data_source_check_output("--log", log, dir, err, err_size) != 0)
    return -1;
  if (save && data_source_check_output("--save", save, dir, err, err_size) != 0)
    return -1;
  return 0;
}
