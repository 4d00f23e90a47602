/* train_report.c: see train_report.h. */
#include "app/train_report.h"

#include <stdio.h>
#include <string.h>

#include "layers/mlp_fp8.h"
#include "lt/lt_matmul.h"

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
  size_t lt = cublasLtGetVersion();
  printf("mnist_train: %s (%d SMs), device %d, cuBLASLt %zu.%zu.%zu\n",
         ctx->device_name, ctx->sm_count, o->gpu.device, lt / 10000,
         lt / 100 % 100, lt % 100);
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
  if (net->fp8_tensors) {
    const char *names[3];
    fp8_recipe_names(&c->fp8, names);
    printf(", fp8 %s (%s), %s scaling, fast accumulation %s", names[0],
           c->fp8.all_e4m3 ? "all E4M3" : "E4M3 forward, E5M2 gradients",
           names[1], names[2]);
  }
  if (o->gpu.chain != GPU_CHAIN_NONE) {
    char chain[128];
    gpu_chain_format(chain, sizeof chain, o->gpu.chain);
    printf(", chain %s", chain);
  }
  if (c->context_cycle) printf(", context cycle");
  printf("\n");
  train_report_data_line(data, dir, trainer_steps_per_epoch(t));
  printf("\nepoch  train_loss  train_acc  test_loss  test_acc  train_ms  "
         "samples/s\n");
}

/* Which of the project's kernels started early (gpu/gpu_early.h), by
 * name, as the context decided them. */
static void report_early(const gpu_context *ctx) {
  const gpu_early_cache *e = &ctx->early;
  printf("\nearly start (programmatic dependent launch) of the project's "
         "%d kernels launched:",
         e->count);
  for (int i = 0; i < e->count; i++) {
    const char *name = NULL;
    if (cudaFuncGetName(&name, e->kernels[i]) != cudaSuccess || !name) {
      cudaGetLastError();
      name = "?";
    }
    printf("%s %.40s %s", i ? "," : "", name, e->early[i] == 1 ? "yes" : "no");
  }
  printf("\n");
}

void train_report_plans(const gpu_context *ctx) {
  int count = lt_plan_count(ctx);
  printf("\n%d cuBLASLt plans (m, n, k, epilogue, type; candidates the "
         "heuristic offered, of them computing the first one's numbers under "
         "--autotune (checked when the step tuner asked), the first alone in "
         "us; auto decided per call (untuned calls): us fused / unfused [/ "
         "split, for DRELU_BGRAD and DGELU_BGRAD] in a graph, choice)\n",
         count);
  for (int i = 0; i < count; i++) {
    lt_plan_info p = lt_plan_info_at(ctx, i);
    char type[40];
    if (lt_shape_is_fp8(&p.shape))
      snprintf(type, sizeof type, "%s*%s%s%s%s", lt_fp8_name(p.shape.a_fp8),
               lt_fp8_name(p.shape.b_fp8), p.shape.d_fp8 ? "->" : "",
               lt_fp8_name(p.shape.d_fp8), p.shape.fast_accum ? "+fast" : "");
    else
      snprintf(type, sizeof type, "%s",
               p.tf32 ? "tf32" : lt_dtype_name(p.shape.type));
    printf("  %5d %5d %5d  %-14s %-14s ", p.shape.m, p.shape.n, p.shape.k,
           lt_epilogue_name(p.shape.epilogue), type);
    if (!p.listed)
      printf("the first only (no list asked for)");
    else
      printf("%3d offered", p.offered);
    if (p.listed && p.single_at != 0)
      printf(" (the first %s)",
             p.single_at < 0 ? "not in the list" : "not first in the list");
    if (p.checked)
      printf(", %3d same numbers, first %.1f us", p.accepted, p.first_us);
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
  report_early(ctx);
}

int train_report_fp8(gpu_context *ctx, const trainer *t, int per_tensor) {
  const mlp *net = trainer_network(t);
  if (!net->fp8_tensors) return 0;
  fp8_meta meta[3 * MLP_MAX_LAYERS];
  if (mlp_fp8_read_meta(net, ctx, meta) != 0) return -1;
  int count = 3 * net->layout.depth;
  unsigned long long saturated = 0, flushed = 0, nan = 0, bad = 0, over = 0;
  for (int i = 0; i < count; i++) {
    saturated += meta[i].saturated;
    flushed += meta[i].flushed;
    nan += meta[i].nan;
    bad += meta[i].bad_amax;
    over += meta[i].overflows;
  }
  printf("fp8: %llu values saturated, %llu flushed to zero, %llu NaN, %llu "
         "steps whose amax passed the range, %llu scales kept for an "
         "inf/NaN amax%s\n",
         saturated, flushed, nan, over, bad,
         per_tensor ? "" : " (--show-plans: per tensor)");
  if (!per_tensor) return 0;
  printf("fp8 tensors (format, casts, last scale, history amax, saturated, "
         "flushed, NaN, steps past the range):\n");
  for (int i = 0; i < count; i++) {
    static const char *const roles[] = {"W", "X", "dZ"};
    char name[16]; /* "W1", "X1", "dZ1": role-major, layers from 1 */
    snprintf(name, sizeof name, "%s%d", roles[i / net->layout.depth],
             i % net->layout.depth + 1);
    float history = 0.0f;
    for (int h = 0; h < FP8_HISTORY; h++)
      if (meta[i].history[h] > history) history = meta[i].history[h];
    int gradient = i / net->layout.depth == MLP_FP8_GRADIENT;
    printf("  %-4s %s %8u casts  scale %-10g amax %-10g %u %u %u %u\n", name,
           lt_fp8_name(gradient ? fp8_recipe_gradient(&net->fp8_tensors->recipe)
                                : LT_FP8_E4M3),
           meta[i].casts, meta[i].scale, history, meta[i].saturated,
           meta[i].flushed, meta[i].nan, meta[i].overflows);
  }
  return 0;
}
