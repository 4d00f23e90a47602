/* tune_rule.h: the step tuner's decision rule (train/step_tune.h), plain C
 * so that it is tested with a fake timer (tests/test_tune_search.c).
 *
 * A challenger (another algorithm, or another way under --mode auto) is
 * compared with the incumbent by timing the whole training step, captured
 * as a CUDA graph, in TUNE_PAIRS pairs of samples interleaved A B, B A, A
 * B, ... (so a drift of the clocks or of the other lane's timing falls on
 * both sides alike). Per pair, d = challenger - incumbent. The challenger
 * replaces the incumbent only when
 *
 *   median(d) < -TUNE_NOISE_K * noise   and   -median(d) > TUNE_MIN_GAIN *
 *                                              median(incumbent)
 *
 * with noise = 1.2533 * 1.4826 * MAD(d) / sqrt(pairs), the standard error
 * of a median of normal samples estimated robustly (1.4826 MAD estimates
 * the standard deviation; a median's error is 1.2533 times a mean's). So
 * ties, and gains within the noise, go to the incumbent, that is to the
 * heuristic's order, which is where every search starts.
 *
 * Why these numbers (simulated, 40 000 comparisons each, samples of 2 %
 * Gaussian noise, with and without 5 % of them slowed by 20 %: the
 * clock's hiccups): the MAD, not the standard deviation, because one slow
 * sample must not hide a real gain (with the SD a 5 % gain won 20-34 % of
 * the time under hiccups, with the MAD 78-89 %). With the MAD estimated
 * from few pairs the noise estimate itself is noisy, so k must be larger
 * than a normal table says: N = 12, k = 3 switched between two equal
 * candidates 1.4 % of the time; N = 16, k = 4 does 0.27 % (0.18 % under
 * hiccups), with the early stop included, while a 5 % gain still wins 89 %
 * (78 %) of the time and a larger one nearly always. A run makes a few
 * dozen comparisons, so a false switch is rare. The 1.5 % floor keeps out
 * gains too small to repeat from run to run: on the H200 the noise of a
 * comparison is 0.1-0.3 % of the step, so a candidate 0.7 % faster won in
 * one process and not in the next (two fingerprints for one command) while
 * epochs showed no gain from it (docs/performance.md).
 * A comparison of the default network (four steps of ~0.1 ms per sample)
 * costs ~14 ms. A challenger whose first TUNE_EARLY_PAIRS pairs
 * show it no faster at all (median(d) >= 0) is out without the rest: the
 * budget goes to the ones that may win.
 */
#ifndef MNIST_EPILOGS_TUNE_RULE_H
#define MNIST_EPILOGS_TUNE_RULE_H

enum { TUNE_PAIRS = 16, TUNE_EARLY_PAIRS = 8 };
#define TUNE_NOISE_K 4.0
#define TUNE_MIN_GAIN 0.015

/* The evidence of one comparison, as --show-plans prints it. */
typedef struct tune_verdict {
  int pairs;       /* pairs measured */
  double base_ms;  /* median of the incumbent's samples, ms per step */
  double cand_ms;  /* median of the challenger's */
  double diff_ms;  /* median of the pair differences challenger - incumbent */
  double noise_ms; /* the noise of diff_ms (above) */
  int wins;        /* 1: the challenger replaces the incumbent */
  int early;       /* 1: out after TUNE_EARLY_PAIRS pairs */
  int refused;     /* 1: the challenger could not run (nothing timed) */
} tune_verdict;

/* The median of x[0 .. count) (count >= 1; x is not changed). */
double tune_median(const float *x, int count);

/* Judges `pairs` pairs of samples (ms per step): base[i] the incumbent's,
 * cand[i] the challenger's of the same pair. */
void tune_rule_judge(tune_verdict *out, const float *base, const float *cand,
                     int pairs);

/* 1 when, after its first pairs, the challenger is already out: median(d)
 * >= 0. */
int tune_rule_out_early(const float *base, const float *cand, int pairs);

#endif
