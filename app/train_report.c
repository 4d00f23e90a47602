/* train_report.c: see train_report.h. */
#include "app/train_report.h"

#include <stdio.h>
#include <string.h>

#include "gpu/lt_matmul.h"

void train_report_data_line(const mnist_dataset *data, const char *dir,
                            int steps) {
  printf("data       %s:", dir);
  int shown = 0;
  for (int f = 0; f < MNIST_FILE_COUNT; f++) {
    if (!data->files[f][0]) continue; /* not read (test split only) */
    const char *slash = strrchr(data->files[f], '/');
    printf("%s %s", shown++ ? "," : "", slash ? slash + 1 : data->files[f]);
  }
  printf("; %d train, %d test", data->train.count, data->test.count);
  if (steps > 0) printf(", %d steps per epoch", steps);
  printf("\n");
}

void train_report_header(const gpu_context *ctx, const train_options *o,
                         const mnist_dataset *data, const char *dir,
                         const trainer *t) {
  const trainer_config *c = &o->config;
  char name[256];
  trainer_config_name(name, sizeof name, c);
  printf("mnist_train: %s (%d SMs), device %d\n", ctx->device_name,
         ctx->sm_count, o->gpu.device);
  const mlp *net = trainer_network(t);
  printf("network    %s, %zu parameters", name, net->unit_params);
  if (c->pad_units) {
    printf("; run as");
    for (int l = 0; l <= net->layout.depth; l++)
      printf("%s%d", l ? "-" : " ", net->layout.widths[l]);
    printf(" (padded units stay 0)");
  }
  printf("\n");
  printf("training   %s, %s, %s, batch %d, lr %g (%s), momentum %g, seed %llu, "
         "%d epochs, graphs %s, autotune %s",
         mlp_mode_name(c->mode), gpu_precision_name(o->gpu.precision),
         lt_activation_name(c->activation), c->batch, c->lr,
         c->cosine ? "cosine" : "constant", c->momentum, c->seed, c->epochs,
         c->graphs ? "on" : "off", gpu_autotune_name(o->gpu.autotune));
  if (net->loss_scale != 1.0f) printf(", loss scale %g", net->loss_scale);
  if (o->gpu.chain != GPU_CHAIN_NONE) {
    char chain[128];
    gpu_chain_format(chain, sizeof chain, o->gpu.chain);
    printf(", chain %s", chain);
  }
  printf("\n");
  train_report_data_line(data, dir, trainer_steps_per_epoch(t));
  printf("\nepoch  train_loss  train_acc  test_loss  test_acc  train_ms  "
         "samples/s\n");
}

void train_report_plans(const gpu_context *ctx) {
  int count = lt_plan_count(ctx);
  printf("\n%d cuBLASLt plans (m, n, k, epilogue, type; candidates offered, "
         "matching the first; kept; us first / kept; auto: us fused / "
         "unfused [/ split, for DRELU_BGRAD and DGELU_BGRAD] in a graph, "
         "choice)\n",
         count);
  for (int i = 0; i < count; i++) {
    lt_plan_info p = lt_plan_info_at(ctx, i);
    printf("  %5d %5d %5d  %-14s %-4s %3d offered, %3d matching, kept #%d",
           p.shape.m, p.shape.n, p.shape.k, lt_epilogue_name(p.shape.epilogue),
           p.tf32 ? "tf32" : lt_dtype_name(p.shape.type), p.offered, p.matched,
           p.chosen);
    if (p.first_us > 0) printf(", %.1f / %.1f us", p.first_us, p.chosen_us);
    if (p.auto_choice) printf("; auto %.2f / %.2f", p.fused_us, p.unfused_us);
    if (p.auto_choice && p.split_us > 0.0f) printf(" / %.2f", p.split_us);
    if (p.auto_choice)
      printf(" us: %s%s",
             p.auto_choice == LT_AUTO_SPLIT     ? "split"
             : p.auto_choice == LT_AUTO_UNFUSED ? "unfused"
                                                : "fused",
             p.split_us == LT_SPLIT_REFUSED
                 ? " (split: cuBLASLt has no plan for its DRELU/DGELU GEMM)"
                 : "");
    printf("\n");
  }
}
