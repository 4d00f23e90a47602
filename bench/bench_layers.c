/* bench_layers.c: every call of one step, plain, fused and unfused
 * (bench_layers.h). */
#include "bench/bench_layers.h"

#include "bench/bench_timing.h"
#include "gpu/lt_unfused.h"

/* The call's name as docs/performance.md writes it: layers count from 1
 * (layer 0 here is "1", the 784 -> first hidden layer). */
static void call_label(char *out, size_t size, const mlp_call *c) {
  switch (c->kind) {
  case MLP_CALL_FORWARD: snprintf(out, size, "forward %d", c->layer + 1); break;
  case MLP_CALL_WEIGHTS: snprintf(out, size, "weights %d", c->layer + 1); break;
  default:
    snprintf(out, size, "data grad %d->%d", c->layer + 1, c->layer);
    break;
  }
}

/* us[0]: the matmul alone (DEFAULT epilogue, same operands); us[1] the
 * fused call; us[2] its unfused twin. A DEFAULT call has no twin: us[1]
 * and us[2] stay 0. */
static int time_call(gpu_context *ctx, const lt_matmul_call *call,
                     float us[3]) {
  lt_matmul_call plain = {.shape = call->shape,
                          .d_a = call->d_a,
                          .d_b = call->d_b,
                          .d_d = call->d_d};
  plain.shape.epilogue = LT_EPILOGUE_DEFAULT;
  plain.shape.aux_ld = 0;
  us[1] = us[2] = 0.0f;
  if (bench_time_op(ctx, lt_matmul, &plain, &us[0]) != 0) return -1;
  if (call->shape.epilogue == LT_EPILOGUE_DEFAULT) return 0;
  if (bench_time_op(ctx, lt_matmul, call, &us[1]) != 0 ||
      bench_time_op(ctx, lt_matmul_unfused, call, &us[2]) != 0)
    return -1;
  return 0;
}

void bench_layer_calls_header(void) {
  printf(
      "\nevery call of one step, as the step makes it (shape, epilogue, "
      "the network's own\nbuffers after one epoch of training): us per call, "
      "median of CUDA-graph replays;\nlane: where the step runs it "
      "(side: beside the main chain); unfused / fused > 1: fused is "
      "faster\n");
  printf("%-18s %-5s %-4s %-15s %-4s %5s %5s %5s  %-14s %9s %9s %9s %8s\n",
         "network", "prec", "act", "call", "lane", "m", "n", "k", "epilogue",
         "matmul", "fused", "unfused", "un/fused");
}

int bench_layer_calls(FILE *json, trainer *t, gpu_context *ctx,
                      const char *network, const char *precision,
                      const char *activation, int *first) {
  mlp_call calls[MLP_MAX_STEP_CALLS];
  int count = trainer_step_calls(t, calls);
  for (int i = 0; i < count; i++) {
    const lt_shape *s = &calls[i].call.shape;
    float us[3];
    if (time_call(ctx, &calls[i].call, us) != 0) return -1;
    char label[32];
    call_label(label, sizeof label, &calls[i]);
    const char *lane = calls[i].lane == GPU_LANE_SIDE ? "side" : "main";
    const char *epilogue = lt_epilogue_name(s->epilogue);
    printf("%-18s %-5s %-4s %-15s %-4s %5d %5d %5d  %-14s %9.1f", network,
           precision, activation, label, lane, s->m, s->n, s->k, epilogue,
           us[0]);
    if (us[1] > 0)
      printf(" %9.1f %9.1f %7.2fx\n", us[1], us[2], us[2] / us[1]);
    else
      printf(" %9s %9s %8s\n", "-", "-", "-");
    if (json) {
      fprintf(json,
              "%s    {\"network\": \"%s\", \"precision\": \"%s\", "
              "\"activation\": \"%s\", \"call\": \"%s\", \"lane\": \"%s\", "
              "\"m\": %d, \"n\": %d, \"k\": %d, \"epilogue\": \"%s\", "
              "\"matmul_us\": %.3f",
              *first ? "" : ",\n", network, precision, activation, label, lane,
              s->m, s->n, s->k, epilogue, us[0]);
      if (us[1] > 0)
        fprintf(json,
                ", \"fused_us\": %.3f, \"unfused_us\": %.3f, "
                "\"unfused_over_fused\": %.4f",
                us[1], us[2], us[2] / us[1]);
      fprintf(json, "}");
    }
    *first = 0;
  }
  return 0;
}
