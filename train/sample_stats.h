/* sample_stats.h: median and range of timing samples, as the programs
 * report them. Plain C. */
#ifndef MNIST_EPILOGS_SAMPLE_STATS_H
#define MNIST_EPILOGS_SAMPLE_STATS_H

/* Sorts samples[0..n) in place (n >= 1) and writes their median (the mean
 * of the middle two for even n), minimum and maximum. */
void sample_stats(float *samples, int n, float *median, float *lo, float *hi);

#endif
