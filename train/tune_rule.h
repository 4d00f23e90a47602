/* tune_rule.h: the step tuner's decision rule (train/step_tune.h), plain C
 * so that it is tested on hand-made samples (tests/test_tune_floor.c) and
 * with a fake timer (tests/test_tune_search.c).
 *
 * A challenger (another algorithm, or another way under --mode auto) is
 * compared with the incumbent by timing the whole training step, captured
 * as a CUDA graph, in TUNE_PAIRS pairs of samples interleaved A B, B A, A
 * B, ... (so a drift of the clocks or of the other lane's timing falls on
 * both sides alike). Per pair, d = challenger - incumbent. The challenger
 * replaces the incumbent only when
 *
 *   median(d) < -TUNE_NOISE_K * noise   and
 *   -median(d) > tune_floor_ms(floor, median(incumbent))
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
 * (78 %) of the time and a larger one nearly always.
 *
 * The floors. The noise of a comparison is not its only error: the timed
 * step (four steps captured, replayed apart from the epoch) is not the
 * epoch. On the H200 (784-1024-1024-10 FP32, batch 128) a data-gradient
 * algorithm won 4.6 % in the timed step in every process and cost 1.5-2 %
 * in the epochs read from the cache (docs/performance.md, "Judged by the
 * step"), and two candidates 3.0 % and 4.6 % faster than the first made
 * three processes print two fingerprints. So an algorithm must gain
 * TUNE_MIN_GAIN_AMPLE, 10 %: above the measured 6.6-point disagreement
 * between the timed step and the epoch - or, on steps over 0.06 ms,
 * TUNE_MIN_GAIN, 1 %, and TUNE_MIN_GAIN_MS, 6 us a step (since session
 * 12, below; on that 0.1 ms step 6 us sits just under the 6.6 measured
 * then, in the training's own context, and the check in a fresh context
 * stands behind it). The gains algorithm tuning exists
 * for are larger (784-100-10 FP32: 2x). A call's way (--mode auto: fused,
 * unfused or split) must gain TUNE_MIN_GAIN_WAY, 3 %, and one whole step
 * against another (auto's tuned all-fused against tuned all-unfused)
 * TUNE_MIN_GAIN_STEPS, 0.5 %: at 10 % and 1.5 % auto stayed fused at
 * 784-100-10 TF32 though the timed step had unfused 0.9 % ahead and the
 * data gradient's unfused way 6.7 % ahead, and its epochs ran 3.6 % behind
 * all-unfused; at 3 % and 0.5 % (H200, session 4's call T, every auto row
 * of 784-100-10 and 784-4096-4096-10 in TF32 and FP16, two processes
 * each) auto was slower than before in no row, faster in 7, and faster
 * than both its fused and its unfused rows in 6 (784-100-10 FP16: 12 %
 * faster than either; docs/performance.md, "Session 4"). A change of
 * several calls' ways at once (the ways the calls take alone, a search's
 * near winners together: tune_search.h) is held to the way floor too: at
 * 0.5 % the same 0.8 % gain of the ways alone won in one process of three
 * (session 7). The price:
 * without the tuning cache, two processes may choose different ways where
 * a way's gain lies near 3 % (784-100-10 TF32: 12 and 14 kernels per step
 * in two processes, 7.73 and 7.82 ms per epoch); the cache, on by
 * default, makes every later run repeat the first's choice.
 * (Those floors were set while the tuner timed candidates in the
 * training's own context, which made the same step 4 % slower there:
 * gpu/gpu_apart.h.) Tuned apart, the algorithm floor still holds: at 2 %
 * the default run's first runs chose other algorithms and ran 2.2 %
 * (fused), 3.3 % (unfused) and 3.3 % (auto) slower than at 10 %, the fused
 * ones 1.4 % slower than --autotune off, and the unfused ones chose
 * differently from process to process (session 5's call D, three processes
 * each); the one algorithm the big network's FP8 step gains by (its second
 * forward GEMM, 1.2 % of the step) stays below even 2 %. Session 11 tried
 * 1 % with the check in a fresh context (step_tune.h, tune_rule_check)
 * behind it: the FP8 step took its gain (8.64-8.65 against off's
 * 8.82-8.85 ms an epoch), but the default network's unfused step kept a
 * set the check timed 1.2 % faster and ran 2 % slower (46.7 against 45.9),
 * two processes chose different algorithms in one slot of 784-100-10
 * (each never tried the other's: test_step_tune failed in three of four
 * runs), and every first run of the default network paid the check
 * (1.25-1.43 s of wall clock, against 1.21-1.22 at 10 %). Each of those
 * failures was a gain of 1-5 us a step on a step of 0.04-0.1 ms; the FP8
 * step's gain is 6.5-8.8 us of 0.58 ms. So since session 12 an algorithm
 * wins by 10 % of the step, or by 1 % and 6 us a step (tune_floor_ms),
 * with the check in a fresh context behind it: the default network's
 * choices are those of 10 % (its candidates gain under 6 us), the big
 * network's FP8 step takes its second forward GEMM's second candidate
 * when its check keeps it (8.49 ms an epoch against off's 8.71;
 * docs/performance.md, "Session 12"), and of mnist_bench's rows only
 * those FP8 ones nominated an algorithm the 10 % floor did not.
 *
 * A comparison of the default network (four steps of ~0.1 ms per sample)
 * costs ~14 ms. A challenger whose first TUNE_EARLY_PAIRS pairs
 * show it no faster at all (median(d) >= 0) is out without the rest: the
 * budget goes to the ones that may win.
 */
#ifndef MNIST_EPILOGS_TUNE_RULE_H
#define MNIST_EPILOGS_TUNE_RULE_H

#include <math.h>

enum { TUNE_PAIRS = 16, TUNE_EARLY_PAIRS = 8 };
#define TUNE_NOISE_K 4.0
/* The noise multiple past which a way short of its floor is a near winner
 * (tune_search.h: nominated, not judged). */
#define TUNE_NEAR_K 2.0
/* The floors (above): an algorithm (10 % of the step, or 1 % and 6 us a
 * step); a call's way; one whole configuration against another. */
#define TUNE_MIN_GAIN_AMPLE 0.10
#define TUNE_MIN_GAIN 0.01
#define TUNE_MIN_GAIN_MS 0.006
#define TUNE_MIN_GAIN_WAY 0.03
#define TUNE_MIN_GAIN_STEPS 0.005

/* A least gain: `fraction` of the incumbent's median step and `ms` ms a
 * step, the larger; but never more than `ample` of the step. */
typedef struct tune_floor {
  double fraction;
  double ms;
  double ample;
} tune_floor;

#define TUNE_FLOOR_ALGO                                                        \
  ((tune_floor){TUNE_MIN_GAIN, TUNE_MIN_GAIN_MS, TUNE_MIN_GAIN_AMPLE})
#define TUNE_FLOOR_WAY ((tune_floor){TUNE_MIN_GAIN_WAY, 0.0, TUNE_MIN_GAIN_WAY})
#define TUNE_FLOOR_STEPS                                                       \
  ((tune_floor){TUNE_MIN_GAIN_STEPS, 0.0, TUNE_MIN_GAIN_STEPS})

/* The least gain `floor` asks of an incumbent of base_ms ms a step. */
static inline double tune_floor_ms(tune_floor floor, double base_ms) {
  double line = floor.fraction * base_ms;
  if (floor.ms > line) line = floor.ms;
  return floor.ample * base_ms < line ? floor.ample * base_ms : line;
}

/* The gain, ms a step, a challenger must exceed (tune_rule_judge):
 * TUNE_NOISE_K times the noise of its pairs' median difference, and the
 * floor's least gain. Inline, as tune_floor_ms: tests/tune_report_text.c
 * reads margins back against it. */
static inline double tune_judge_line_ms(double noise_ms, tune_floor floor,
                                        double base_ms) {
  double line = TUNE_NOISE_K * noise_ms;
  double least = tune_floor_ms(floor, base_ms);
  return least > line ? least : line;
}
/* The least gain, in ms a step, a check in a fresh context keeps a set
 * for (tune_rule_check). */
#define TUNE_CHECK_MIN_MS 0.003

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
 * cand[i] the challenger's of the same pair; `floor` the least gain
 * (TUNE_FLOOR_ALGO, TUNE_FLOOR_WAY or TUNE_FLOOR_STEPS). */
void tune_rule_judge(tune_verdict *out, const float *base, const float *cand,
                     int pairs, tune_floor floor);

/* 1 when, after its first pairs, the challenger is already out: median(d)
 * >= 0. */
int tune_rule_out_early(const float *base, const float *cand, int pairs);

/* The noise of the median of x[0 .. count): 1.2533 x 1.4826 x MAD /
 * sqrt(count), as above. */
double tune_noise(const float *x, int count);

/* The check in a fresh context (train/step_tune.h; "untuned" below is
 * the set it defends: under --mode auto the start, tune_defended), which
 * has loaded the first candidates, the untuned set's and then the chosen
 * set's kernels
 * (the run's context holds the first and the chosen set's when it takes
 * the set): `v` judges the chosen
 * set (the challenger) against the untuned one, interleaved, by `floor`;
 * untuned_alone_ms (noise untuned_alone_noise_ms) is the untuned step timed
 * there before the chosen set's kernels were loaded, as the run's context
 * runs it when it drops the set. Loading a kernel can move the same step
 * by a few per cent (on the H200 the default network's untuned step ran
 * 2.8-6.9 % slower in the check's timed steps beside one more
 * data-gradient kernel, 3.7 % in a run's epochs: docs/performance.md,
 * "Session 11"), so the set is kept only
 * when it also beats untuned_alone_ms: by floor x untuned_alone_ms, by
 * TUNE_NOISE_K times the two medians' noise together, and by
 * TUNE_CHECK_MIN_MS. That last floor is the timed step's own error: on the
 * H200 a default-network set timed 1.2 us a step faster than the untuned
 * one ran 2 % slower in its epochs (0.0961 ms a step timed, 0.0996 in the
 * epochs: 3.5 us apart), while the big network's FP8 set that ran 2 %
 * faster in its epochs timed 3.7-5.5 us faster (docs/performance.md,
 * "Session 11"). Where the two sets differ in the calls' ways only (every
 * algorithm cuBLASLt's first in both: ways_only), the pairs alone decide:
 * the loaded kernel that moved the untuned step was an algorithm past the
 * first, and the guard dropped way-only sets that won their pairs by 4-5
 * us and ran 3.5-7 % faster in epochs than the untuned set the run took
 * instead (784-1024-1024-10 FP32 and TF32 GELU under --mode auto,
 * docs/performance.md, "Session 12"). Returns 1 to keep the chosen set. */
int tune_rule_check(const tune_verdict *v, double untuned_alone_ms,
                    double untuned_alone_noise_ms, double floor, int ways_only);

/* The gain, ms a step, over the untuned step alone that tune_rule_check
 * asks of a chosen set whose pairs had noise noise_ms: floor x
 * untuned_alone_ms, TUNE_NOISE_K times the two medians' noise together,
 * and TUNE_CHECK_MIN_MS. */
static inline double tune_check_line_ms(double noise_ms,
                                        double untuned_alone_ms,
                                        double untuned_alone_noise_ms,
                                        double floor) {
  double line =
      TUNE_NOISE_K * sqrt(noise_ms * noise_ms +
                          untuned_alone_noise_ms * untuned_alone_noise_ms);
  if (floor * untuned_alone_ms > line) line = floor * untuned_alone_ms;
  return TUNE_CHECK_MIN_MS > line ? TUNE_CHECK_MIN_MS : line;
}

#endif
