/* host_clock.h: the host's monotonic clock in ms, for the wall-clock times
 * the programs print (the set-up, the step tuner, the context cycle); GPU
 * time is measured with CUDA events, not with this. */
#ifndef MNIST_EPILOGS_HOST_CLOCK_H
#define MNIST_EPILOGS_HOST_CLOCK_H

#include <time.h>

/* ms since an arbitrary start (CLOCK_MONOTONIC): only differences mean
 * anything. */
static inline double host_clock_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

#endif
