/* bench_off.h: mnist_bench --against-off: a row timed against the same row
 * under --autotune off in the same process. Across processes the same
 * kernels spread by more than the 1 % a tuned row is held to (session 24:
 * off against itself over 1.01x in 19 of 66 rows, up to 1.062), so the
 * question "is tuning ever slower than cuBLASLt's first candidates" cannot
 * be answered from separate runs. Here one trainer takes the row's choices
 * (its step tuner report's entry), the other is made in a context whose
 * autotune rule is off (so it runs cuBLASLt's first candidates, and under
 * --mode auto the ways its own search chooses); the pair is made twice,
 * once in each order (bench_creation_order), and within each making their
 * epochs alternate, which runs first turning each round
 * (bench_group_order). Each round gives one ratio, the row's epoch over
 * off's beside it. Where the two launch the same kernels the same way, the
 * ratio is what the process does to two trainers of one step, not what
 * tuning chose (session 25: 1.01-1.04x at 784-1024-1024-10 TF32 with the
 * same kernels). */
#ifndef MNIST_EPILOGS_BENCH_OFF_H
#define MNIST_EPILOGS_BENCH_OFF_H

#include "bench/bench_train.h"
#include "train/tune_cache.h"

typedef struct bench_off_result {
  int measured; /* 0: not timed (no --against-off) */
  /* the rounds' row / off: median (min-max) */
  float ratio, ratio_lo, ratio_hi;
  float off_ms; /* off's median ms per epoch in the pairs */
  /* off's chosen set in each making (its ways under auto; the second
   * making takes the first's); 0: nothing chosen (fused, unfused) */
  unsigned off_fingerprint[2];
  /* 1: the two steps launch the same kernels the same way
   * (bench_graph_launches, in the first making), 0: they do not */
  int same_launches;
} bench_off_result;

/* Times the row `c` describes (its mode, padding, activation and graphs
 * set; c->epochs = run->repeats + 1) of network `name` in precision p with
 * the choices `given` (NULL: it chooses in the first making, as its
 * context's rule says, and the second making takes that set) against the
 * same row made in run->off_contexts[p] (whose set the second making takes
 * too), as above: 2 x run->repeats rounds after a warm-up round per
 * making. Leaves c->tune_given NULL. Returns 0 with *out filled, or -1 (a
 * trainer failed or diverged, a step could not be captured or read;
 * message on stderr). */
int bench_off_time(bench_off_result *out, const bench_run *run,
                   trainer_config *c, const char *name, gpu_precision p,
                   const tune_cache_entry *given);

#endif
