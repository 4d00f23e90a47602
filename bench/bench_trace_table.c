/* bench_trace_table.c: critical path, lanes and the Markdown table of a
 * traced step (bench_trace_table.h). */
#include "bench/bench_trace_table.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* The row among rows[0..count) (or among pred[] when given) that ends
 * last; ties go to the later row. -1 when there is none. */
static int latest(const trace_kernel *rows, const int *pred, int count) {
  int best = -1;
  for (int i = 0; i < count; i++) {
    int r = pred ? pred[i] : i;
    if (best < 0 || rows[r].end_us > rows[best].end_us ||
        (rows[r].end_us == rows[best].end_us && r > best))
      best = r;
  }
  return best;
}

int trace_critical_path(trace_path *path, const trace_kernel *rows, int count) {
  path->length = 0;
  path->span_us = path->busy_us = 0;
  int r = latest(rows, NULL, count);
  /* Walked backwards; every step moves to a lower row, so it ends. */
  while (r >= 0) {
    for (int i = 0; i < rows[r].pred_count; i++)
      if (rows[r].pred[i] < 0 || rows[r].pred[i] >= r) return -1;
    path->row[path->length++] = r;
    r = latest(rows, rows[r].pred, rows[r].pred_count);
  }
  for (int i = 0, j = path->length - 1; i < j; i++, j--) {
    int swap = path->row[i];
    path->row[i] = path->row[j];
    path->row[j] = swap;
  }
  for (int i = 0; i < path->length; i++) {
    const trace_kernel *k = &rows[path->row[i]];
    path->busy_us += k->end_us - k->ready_us;
  }
  if (path->length > 0)
    path->span_us =
        rows[path->row[path->length - 1]].end_us - rows[path->row[0]].ready_us;
  return path->length;
}

void trace_mark_lanes(trace_kernel *rows, int count, const trace_path *path) {
  for (int i = 0; i < count; i++)
    rows[i].main_lane = 0;
  for (int i = 0; i < path->length; i++)
    rows[path->row[i]].main_lane = 1;
}

void trace_short_name(char *out, const char *name) {
  size_t size = TRACE_NAME_CHARS + 1;
  if (name[0] == '_' && name[1] == 'Z' && isdigit((unsigned char)name[2])) {
    char *end = NULL;
    long length = strtol(name + 2, &end, 10);
    if (length > 0 && length < (long)size && (long)strlen(end) >= length) {
      snprintf(out, size, "%.*s", (int)length, end);
      return;
    }
  }
  if (strlen(name) < size)
    snprintf(out, size, "%s", name);
  else
    snprintf(out, size, "%.*s...", TRACE_NAME_CHARS - 3, name);
}

/* "3 (full), 4 (programmatic)", or "start" for a root. */
static void print_preds(FILE *out, const trace_kernel *k) {
  if (k->pred_count == 0) fprintf(out, "start");
  for (int i = 0; i < k->pred_count; i++)
    fprintf(out, "%s%d (%s)", i ? ", " : "", k->pred[i],
            k->pred_programmatic[i] ? "programmatic" : "full");
}

void trace_print_markdown(FILE *out, const trace_kernel *rows, int count,
                          const trace_path *path) {
  fprintf(out, "| # | kernel | lane | ready (us) | end (us) | duration (us) "
               "| waited for |\n");
  fprintf(out, "|---:|---|---|---:|---:|---:|---|\n");
  for (int i = 0; i < count; i++) {
    const trace_kernel *k = &rows[i];
    fprintf(out, "| %d | `%s` | %s | %.2f | %.2f | %.2f | ", i, k->name,
            k->main_lane ? "main" : "side", k->ready_us, k->end_us,
            k->end_us - k->ready_us);
    print_preds(out, k);
    fprintf(out, " |\n");
  }
  fprintf(out, "\ncritical path (%d of %d kernels):", path->length, count);
  for (int i = 0; i < path->length; i++)
    fprintf(out, "%s%d", i ? " -> " : " ", path->row[i]);
  fprintf(out,
          "\ncritical path: span %.2f us (ready of #%d to end of #%d), busy "
          "%.2f us (sum of durations), waiting %.2f us\n",
          path->span_us, path->length ? path->row[0] : -1,
          path->length ? path->row[path->length - 1] : -1, path->busy_us,
          path->span_us - path->busy_us);
}
