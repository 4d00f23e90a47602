/* bench_output.c: mnist_bench's output file, checked early and replaced
 * by the rule --log and --save follow (checkpoint/write_target.h;
 * bench_output.h). */
#include "bench/bench_output.h"

#include <stdio.h>
#include <string.h>

#include "checkpoint/write_target.h"

int bench_output_check(const char *flag, const char *path, char *err,
                       size_t err_size) {
  if (path[0] != '\0') return write_target_check(flag, path, err, err_size);
  snprintf(err, err_size, "%s: expected a file name, found ''", flag);
  return -1;
}

/* write_target_writer: the text and a newline. */
static int write_text(FILE *file, void *arg) {
  const char *text = arg;
  return fputs(text, file) >= 0 && fputc('\n', file) != EOF ? 0 : -1;
}

int bench_output_replace(const char *path, const char *text) {
  char err[8400];
  if (write_target_commit("--json", path, write_text, (void *)text, err,
                          sizeof err) == 0)
    return 0;
  fprintf(stderr, "bench_output: %s\n", err);
  return -1;
}
