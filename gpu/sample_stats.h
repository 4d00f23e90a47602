/* sample_stats.h: median and range of timing samples, the one way the
 * programs, the benchmark, the step tuner's rule (tune_rule.c) and
 * --mode auto (lt_auto.c) take them. Plain C; in gpu/, the lowest folder, so
 * that every one of them may link it. */
#ifndef MNIST_EPILOGS_SAMPLE_STATS_H
#define MNIST_EPILOGS_SAMPLE_STATS_H

/* Sorts samples[0..n) in place (n >= 1) and writes their median (the
 * middle one for odd n, the mean of the middle two for even n) and, where
 * lo and hi are not NULL, the minimum and maximum. */
void sample_stats(float *samples, int n, float *median, float *lo, float *hi);

#endif
