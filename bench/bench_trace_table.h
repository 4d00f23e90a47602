/* bench_trace_table.h: the table mnist_bench --trace-step prints: one row
 * per kernel node of a training step (in topological order), its measured
 * ready and end times, the kernels it waited for; the critical path over
 * those times, the lane rule, and the Markdown table. Plain C (no GPU): it
 * is tested on hand-made tables. */
#ifndef MNIST_EPILOGS_BENCH_TRACE_TABLE_H
#define MNIST_EPILOGS_BENCH_TRACE_TABLE_H

#include <stdio.h>

/* Kernels a kernel may wait for, at most. */
#define TRACE_MAX_PREDS 16
/* Characters of a kernel name kept (longer ones end in "..."). */
#define TRACE_NAME_CHARS 96

typedef struct trace_kernel {
  char name[TRACE_NAME_CHARS + 1];
  /* Median times from the start event recorded before the graph launch,
   * in microseconds: when its dependencies had all completed (ready), and
   * when it completed (end). */
  float ready_us, end_us;
  int pred_count;
  int pred[TRACE_MAX_PREDS]; /* row indices, each below this row's */
  int pred_programmatic[TRACE_MAX_PREDS]; /* 1: programmatic edge */
  int main_lane; /* trace_mark_lanes: 1 on the critical path */
} trace_kernel;

typedef struct trace_path {
  int length;
  int *row;      /* [length], first to last; the caller gives the room */
  float span_us; /* end of the last minus ready of the first */
  float busy_us; /* sum of (end - ready) along the path */
} trace_path;

/* The critical path over measured times: from the row that ends last,
 * back through the predecessor that ended last (the one that released
 * it), to a row with none. path->row needs room for `count` rows. Returns
 * the length (0 when count is 0), or -1 when a predecessor index is not
 * below its row's. */
int trace_critical_path(trace_path *path, const trace_kernel *rows, int count);

/* The lane rule (the graph does not say which stream captured a node):
 * main_lane = 1 for the rows on `path`, 0 ("side") for the others. */
void trace_mark_lanes(trace_kernel *rows, int count, const trace_path *path);

/* Copies `name` into out (TRACE_NAME_CHARS + 1 bytes): a simple mangled
 * C++ name ("_Z" length identifier ...) as its identifier, a name longer
 * than TRACE_NAME_CHARS cut with "...", anything else as it is. */
void trace_short_name(char *out, const char *name);

/* The Markdown table (index, kernel, lane, ready, end, duration, waited
 * for), then the critical path and its totals. */
void trace_print_markdown(FILE *out, const trace_kernel *rows, int count,
                          const trace_path *path);

#endif
