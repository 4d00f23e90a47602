/* bench_profile.c: one profiled step per network and mode
 * (bench_profile.h). */
#include "bench/bench_profile.h"

#include <cuda_profiler_api.h>
#include <stdio.h>

#include "bench/bench_rows.h"
#include "train/trainer.h"

int bench_profile_steps(const mnist_dataset *data, gpu_context *ctx,
                        lt_activation activation, const fp8_recipe *fp8,
                        int only_network) {
  const mlp_mode modes[2] = {MLP_MODE_FUSED, MLP_MODE_UNFUSED};
  int net_count;
  const bench_net *nets = bench_nets(&net_count);
  for (int n = 0; n < net_count; n++) {
    if (only_network != 0 && n != only_network - 1) continue;
    trainer_config c;
    char err[128], name[64];
    if (bench_net_config(&c, &nets[n], err, sizeof err) != 0) {
      fprintf(stderr, "mnist_bench: %s\n", err);
      return -1;
    }
    c.epochs = 1;
    c.activation = activation;
    c.fp8 = *fp8;
    trainer_config_name(name, sizeof name, &c);
    for (int i = 0; i < 2; i++) {
      trainer *t = NULL;
      epoch_stats s;
      c.mode = modes[i];
      int status = trainer_create(&t, ctx, data, &c);
      if (status == 0) status = trainer_run_epoch(t, 0, &s);
      if (status == 0) {
        printf("profiling one %s %s %s step of %s\n", mlp_mode_name(c.mode),
               gpu_precision_name(ctx->options.precision),
               lt_activation_name(activation), name);
        fflush(stdout);
        cudaProfilerStart();
        status = trainer_step_once(t);
        cudaProfilerStop();
      }
      trainer_destroy(t);
      if (status != 0) return -1;
    }
  }
  return 0;
}
