/* tune_rule.c: the step tuner's decision rule (tune_rule.h). */
#include "train/tune_rule.h"

#include <math.h>
#include <string.h>

#include "gpu/sample_stats.h"

/* The most samples one median is taken of. */
enum { TUNE_RULE_MAX = 4 * TUNE_PAIRS };

double tune_median(const float *x, int count) {
  float sorted[TUNE_RULE_MAX], median;
  if (count > TUNE_RULE_MAX) count = TUNE_RULE_MAX;
  memcpy(sorted, x, (size_t)count * sizeof *x);
  sample_stats(sorted, count, &median, NULL, NULL);
  return median;
}

/* d[i] = cand[i] - base[i]. */
static void differences(float *d, const float *base, const float *cand,
                        int pairs) {
  for (int i = 0; i < pairs; i++)
    d[i] = cand[i] - base[i];
}

double tune_noise(const float *x, int count) {
  float spread[TUNE_RULE_MAX];
  if (count > TUNE_RULE_MAX) count = TUNE_RULE_MAX;
  if (count < 1) return 0.0;
  double median = tune_median(x, count);
  for (int i = 0; i < count; i++)
    spread[i] = (float)fabs(x[i] - median);
  return 1.2533 * 1.4826 * tune_median(spread, count) / sqrt((double)count);
}

void tune_rule_judge(tune_verdict *out, const float *base, const float *cand,
                     int pairs, tune_floor floor) {
  float d[TUNE_RULE_MAX];
  if (pairs > TUNE_RULE_MAX) pairs = TUNE_RULE_MAX;
  differences(d, base, cand, pairs);
  double diff = tune_median(d, pairs);
  memset(out, 0, sizeof *out);
  out->pairs = pairs;
  out->base_ms = tune_median(base, pairs);
  out->cand_ms = tune_median(cand, pairs);
  out->diff_ms = diff;
  out->noise_ms = tune_noise(d, pairs);
  out->wins = -diff > tune_judge_line_ms(out->noise_ms, floor, out->base_ms);
}

int tune_rule_out_early(const float *base, const float *cand, int pairs) {
  float d[TUNE_RULE_MAX];
  if (pairs > TUNE_RULE_MAX) pairs = TUNE_RULE_MAX;
  differences(d, base, cand, pairs);
  return tune_median(d, pairs) >= 0.0;
}

int tune_rule_check(const tune_verdict *v, double untuned_alone_ms,
                    double untuned_alone_noise_ms, double floor,
                    int ways_only) {
  if (ways_only) return v->wins;
  return v->wins && untuned_alone_ms - v->cand_ms >
                        tune_check_line_ms(v->noise_ms, untuned_alone_ms,
                                           untuned_alone_noise_ms, floor);
}
