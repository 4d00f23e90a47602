/* bench_rounds.c: one making's interleaved rounds (bench_rounds.h). */
#include "bench/bench_rounds.h"

#include "bench/bench_rows.h"

int bench_time_rounds(trainer *const *t, int size, int pass, int repeats,
                      float *const *times, epoch_stats *last, int *failed) {
  for (int round = 0; round <= repeats; round++) {
    int order = round == 0 ? 0 : pass * repeats + round;
    for (int i = 0; i < size; i++) {
      int v = bench_group_order(size, order, i);
      if (!t[v]) continue;
      int status = trainer_run_epoch(t[v], round, &last[v]);
      if (status != 0) {
        *failed = v;
        return status;
      }
      if (round > 0) times[v][pass * repeats + round - 1] = last[v].train_ms;
    }
  }
  return 0;
}
