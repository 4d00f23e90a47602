/* bench_layers.c: every call of one step, plain, fused and unfused, for
 * each network and precision (bench_layers.h). */
#include "bench/bench_layers.h"

#include <stdio.h>

#include "bench/bench_timing.h"
#include "lt/lt_split.h"
#include "lt/lt_unfused.h"
#include "train/trainer.h"

/* us[0]: the matmul alone (DEFAULT epilogue, same operands); us[1] the
 * fused call; us[2] its unfused twin; us[3] the split way (lt_split.h) of
 * a DRELU_BGRAD / DGELU_BGRAD call, LT_SPLIT_REFUSED where cuBLASLt has no
 * plan for its DRELU / DGELU GEMM, else 0. A DEFAULT call has no twin:
 * us[1..3] stay 0. */
static int time_call(gpu_context *ctx, const lt_matmul_call *call,
                     float us[4]) {
  lt_matmul_call plain = lt_call_plain(call);
  us[1] = us[2] = us[3] = 0.0f;
  if (bench_time_op(ctx, lt_matmul, &plain, &us[0]) != 0) return -1;
  if (call->shape.epilogue == LT_EPILOGUE_DEFAULT) return 0;
  /* An FP8 output has no unfused twin (lt_unfused.h): us[2] stays 0. */
  if (bench_time_op(ctx, lt_matmul, call, &us[1]) != 0 ||
      (!call->shape.d_fp8 &&
       bench_time_op(ctx, lt_matmul_unfused, call, &us[2]) != 0))
    return -1;
  if (!lt_epilogue_has_split(call->shape.epilogue)) return 0;
  lt_matmul_call gemm = lt_call_split(call);
  if (lt_matmul_plannable(ctx, &gemm) != 0) {
    us[3] = LT_SPLIT_REFUSED;
    return 0;
  }
  return bench_time_op(ctx, lt_matmul_split, call, &us[3]);
}

/* The table's title and header. */
static void print_header(void) {
  printf(
      "\nevery call of one step, as the step makes it (shape, epilogue, "
      "the network's own\nbuffers after one epoch of training): us per call, "
      "median of CUDA-graph replays;\nlane: where the step runs it "
      "(side: beside the main chain); unfused / fused > 1: fused is "
      "faster;\nsplit: DRELU / DGELU in the GEMM, then the row sums "
      "(DRELU_BGRAD, DGELU_BGRAD only)\n");
  printf("%-18s %-5s %-4s %-15s %-4s %5s %5s %5s  %-14s %9s %9s %9s %8s %9s\n",
         "network", "prec", "act", "call", "lane", "m", "n", "k", "epilogue",
         "matmul", "fused", "unfused", "un/fused", "split");
}

/* Times and prints the calls of one step of the network that `t` trains
 * (named `network`, in `precision` and `activation`, for the labels), and
 * adds them to `json` (NULL: none). Overwrites the network's activations
 * and gradients (not its parameters). Returns 0 or -1. */
static int time_step_calls(bench_json *json, trainer *t, gpu_context *ctx,
                           const char *network, const char *precision,
                           const char *activation) {
  mlp_call calls[MLP_MAX_STEP_CALLS];
  int count = trainer_step_calls(t, calls);
  for (int i = 0; i < count; i++) {
    const lt_shape *s = &calls[i].call.shape;
    float us[4];
    if (time_call(ctx, &calls[i].call, us) != 0) return -1;
    char label[32];
    mlp_call_label(label, sizeof label, &calls[i]);
    const char *lane = calls[i].lane == GPU_LANE_SIDE ? "side" : "main";
    const char *epilogue = lt_epilogue_name(s->epilogue);
    printf("%-18s %-5s %-4s %-15s %-4s %5d %5d %5d  %-14s %9.1f", network,
           precision, activation, label, lane, s->m, s->n, s->k, epilogue,
           us[0]);
    if (us[1] > 0 && us[2] > 0)
      printf(" %9.1f %9.1f %7.2fx", us[1], us[2], us[2] / us[1]);
    else if (us[1] > 0)
      printf(" %9.1f %9s %8s", us[1], "-", "-");
    else
      printf(" %9s %9s %8s", "-", "-", "-");
    if (us[3] > 0)
      printf(" %9.1f\n", us[3]);
    else
      printf(" %9s\n", us[3] == LT_SPLIT_REFUSED ? "refused" : "-");
    bench_call_record record = {.network = network,
                                .precision = precision,
                                .activation = activation,
                                .call = label,
                                .lane = lane,
                                .m = s->m,
                                .n = s->n,
                                .k = s->k,
                                .epilogue = epilogue,
                                .matmul_us = us[0],
                                .fused_us = us[1],
                                .unfused_us = us[2],
                                .split_us = us[3] > 0 ? us[3] : 0};
    if (json && bench_json_add_call(json, &record) != 0) return -1;
  }
  return 0;
}

int bench_layers_run(const bench_run *run) {
  lt_activation act = run->selection.activation < 0
                          ? LT_ACTIVATION_RELU
                          : (lt_activation)run->selection.activation;
  int net_count;
  const bench_net *nets = bench_nets(&net_count);
  print_header();
  for (int i = 0; i < net_count; i++)
    for (int p = 0; p < GPU_PRECISION_COUNT; p++) {
      if (!bench_activation_selected(&run->selection, p, (int)act)) continue;
      if (run->selection.only_network && i != run->selection.only_network - 1)
        continue;
      trainer_config c;
      char err[128], name[64];
      if (bench_net_config(&c, &nets[i], err, sizeof err) != 0) {
        fprintf(stderr, "mnist_bench: %s\n", err);
        return -1;
      }
      c.epochs = 1;
      c.mode = MLP_MODE_FUSED;
      bench_run_tuning(&c, run);
      c.activation = act;
      c.fp8 = run->fp8;
      trainer_config_name(name, sizeof name, &c);
      trainer *t = NULL;
      epoch_stats s;
      int status = trainer_create(&t, run->contexts[p], run->data, &c);
      if (status == 0) status = trainer_run_epoch(t, 0, &s);
      if (status == 0)
        status = time_step_calls(run->json, t, run->contexts[p], name,
                                 gpu_precision_name((gpu_precision)p),
                                 lt_activation_name(act));
      trainer_destroy(t);
      if (status != 0) return -1;
    }
  return 0;
}
