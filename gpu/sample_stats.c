/* sample_stats.c: see sample_stats.h. */
#include "gpu/sample_stats.h"

#include <stdlib.h>

static int compare_floats(const void *x, const void *y) {
  float a = *(const float *)x, b = *(const float *)y;
  return (a > b) - (a < b);
}

void sample_stats(float *samples, int n, float *median, float *lo, float *hi) {
  qsort(samples, (size_t)n, sizeof *samples, compare_floats);
  *median =
      n % 2 ? samples[n / 2] : 0.5f * (samples[n / 2 - 1] + samples[n / 2]);
  if (lo) *lo = samples[0];
  if (hi) *hi = samples[n - 1];
}
