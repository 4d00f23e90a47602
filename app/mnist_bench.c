/* mnist_bench.c: fused against unfused training speed, measured side by
 * side in one run. For each network it trains fused and unfused (FP32 with
 * graphs on and off, FP32 with autotune fast, TF32) round-robin, one epoch
 * of each per round, after one warm-up epoch each; epochs are timed with
 * CUDA events and reported as median (min-max). Then it times single
 * layers: forward RELU_AUX_BIAS against matmul + bias + ReLU kernels, and
 * backward DRELU_BGRAD against matmul + mask + reduction, each as the
 * median of CUDA-graph replays. The only other place that exits. */
#include <cuda_profiler_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../data/mnist.h"
#include "../gpu/gpu_check.h"
#include "bench_layers.h"
#include "bench_options.h"
#include "bench_timing.h"
#include "data_source.h"
#include "sample_stats.h"
#include "train_options.h"
#include "trainer.h"

#ifndef MNIST_SOURCE_DIR
#define MNIST_SOURCE_DIR "."
#endif

typedef struct bench_net {
  int hidden[3];
  int hidden_count;
  int batch;
} bench_net;

/* NVIDIA's epilogue example, a mid-size and a large network. */
static const bench_net nets[] = {
    {{100}, 1, 256},
    {{1024, 1024}, 2, 256},
    {{4096, 4096}, 2, 4096},
};
enum { NETS = sizeof nets / sizeof nets[0] };

typedef struct variant {
  const char *name;
  mlp_mode mode;
  int context; /* index into the contexts: FP32 exact, FP32 fast, TF32 */
  int graphs;
} variant;

enum { CONTEXT_FP32, CONTEXT_FP32_FAST, CONTEXT_TF32, CONTEXTS };
static const char *context_names[CONTEXTS] = {"FP32", "FP32*", "TF32"};

/* Fused and unfused twins, interleaved: FP32 (autotune exact, the
 * default), the same without graphs, FP32 with autotune fast, TF32. */
static const variant variants[] = {
    {"fused", MLP_MODE_FUSED, CONTEXT_FP32, 1},
    {"unfused", MLP_MODE_UNFUSED, CONTEXT_FP32, 1},
    {"fused", MLP_MODE_FUSED, CONTEXT_FP32, 0},
    {"unfused", MLP_MODE_UNFUSED, CONTEXT_FP32, 0},
    {"fused", MLP_MODE_FUSED, CONTEXT_FP32_FAST, 1},
    {"unfused", MLP_MODE_UNFUSED, CONTEXT_FP32_FAST, 1},
    {"fused", MLP_MODE_FUSED, CONTEXT_TF32, 1},
    {"unfused", MLP_MODE_UNFUSED, CONTEXT_TF32, 1},
};
enum { VARIANTS = sizeof variants / sizeof variants[0] };

/* Matmul FLOPs of one epoch: forward 2 n in out per layer, weight
 * gradient the same, data gradient for every layer but the first. */
static double epoch_flops(const trainer_config *c, int count) {
  double per_sample = 0;
  for (int l = 0; l < c->depth; l++) {
    double layer = 2.0 * c->widths[l] * c->widths[l + 1];
    per_sample += layer * (l == 0 ? 2 : 3);
  }
  return per_sample * count;
}

typedef struct variant_result {
  float median, lo, hi;
  int kernels, critical;
  double accuracy;
} variant_result;

static int bench_network(FILE *json, const bench_net *net,
                         const mnist_dataset *data, const bench_options *o,
                         gpu_context *const *contexts, double peak_tflops,
                         float launch_us, int first) {
  trainer_config c = trainer_config_defaults();
  char err[128];
  if (trainer_config_set_hidden(&c, net->hidden, net->hidden_count, err,
                                sizeof err) != 0) {
    fprintf(stderr, "mnist_bench: %s\n", err);
    return -1;
  }
  c.batch = net->batch;
  c.epochs = o->repeats + 1;
  trainer *t[VARIANTS] = {0};
  float times[VARIANTS][BENCH_MAX_REPEATS];
  variant_result r[VARIANTS];
  int status = 0;
  for (int v = 0; v < VARIANTS && status == 0; v++) {
    c.mode = variants[v].mode;
    c.graphs = variants[v].graphs;
    status = trainer_create(&t[v], contexts[variants[v].context], data, &c);
    if (status == 0)
      status = trainer_kernels_per_step(t[v], &r[v].kernels, &r[v].critical);
  }
  epoch_stats s;
  /* Round 0 warms up (first replay of each graph, clocks); rounds 1..R
   * are timed, each variant once per round. */
  for (int round = 0; round <= o->repeats && status == 0; round++)
    for (int v = 0; v < VARIANTS && status == 0; v++) {
      status = trainer_run_epoch(t[v], round, &s);
      if (status > 0)
        fprintf(stderr, "mnist_bench: %s diverged (loss %g)\n",
                variants[v].name, s.train_loss);
      if (status != 0) break;
      if (round > 0) times[v][round - 1] = s.train_ms;
      r[v].accuracy = s.test_accuracy;
    }
  char name[64];
  trainer_config_name(name, sizeof name, &c);
  int steps = status == 0 ? trainer_steps_per_epoch(t[0]) : 1;
  double flops = epoch_flops(&c, data->train.count);
  for (int v = 0; v < VARIANTS && status == 0; v++) {
    sample_stats(times[v], o->repeats, &r[v].median, &r[v].lo, &r[v].hi);
    /* The speedup column: the fused twin's median over this one's, for
     * unfused rows (how much slower unfused is); 1 for fused rows. */
    int twin = variants[v].mode == MLP_MODE_UNFUSED ? v - 1 : v;
    double speedup = r[v].median / r[twin].median;
    double tflops = flops / (r[v].median * 1e-3) / 1e12;
    /* The floor: the longest chain of dependent kernels, each costing
     * at least one empty-kernel launch, plus the matmul FLOPs at peak. */
    double floor_ms = steps * r[v].critical * launch_us / 1000.0;
    printf("%-18s %6d  %-8s %-5s %-4s %9.2f (%.2f-%.2f) %9.1f %4d/%-3d %7.2f "
           "%8.1f %6.1f%% %8.2f%%\n",
           name, net->batch, variants[v].name,
           context_names[variants[v].context],
           variants[v].graphs ? "on" : "off", r[v].median, r[v].lo, r[v].hi,
           1000.0 * r[v].median / steps, r[v].kernels, r[v].critical, floor_ms,
           tflops, 100.0 * tflops / peak_tflops, 100.0 * r[v].accuracy);
    if (variants[v].mode == MLP_MODE_UNFUSED)
      printf("%-18s %6s  speedup unfused/fused (%s, graphs %s): %.2fx\n", "",
             "", context_names[variants[v].context],
             variants[v].graphs ? "on" : "off", speedup);
    if (json)
      fprintf(json,
              "%s    {\"network\": \"%s\", \"batch\": %d, \"mode\": \"%s\", "
              "\"math\": \"%s\", \"graphs\": %s, \"ms_per_epoch\": %.4f, "
              "\"ms_min\": %.4f, \"ms_max\": %.4f, \"us_per_step\": %.3f, "
              "\"kernels_per_step\": %d, \"critical_path_kernels\": %d, "
              "\"launch_floor_ms\": %.4f, \"tflops\": %.3f, "
              "\"fraction_of_peak\": %.4f, \"speedup_vs_fused\": %.4f, "
              "\"test_accuracy\": %.4f, \"repeats\": %d}",
              first && v == 0 ? "" : ",\n", name, net->batch, variants[v].name,
              context_names[variants[v].context],
              variants[v].graphs ? "true" : "false", r[v].median, r[v].lo,
              r[v].hi, 1000.0 * r[v].median / steps, r[v].kernels,
              r[v].critical, floor_ms, tflops, tflops / peak_tflops, speedup,
              r[v].accuracy, o->repeats);
  }
  for (int v = 0; v < VARIANTS; v++)
    trainer_destroy(t[v]);
  return status;
}

/* One fused then one unfused step of the seed network, each after a
 * warm-up epoch, inside cudaProfilerStart/Stop. */
static int profile_steps(const mnist_dataset *data, gpu_context *ctx) {
  trainer_config c = trainer_config_defaults();
  char err[128];
  if (trainer_config_set_hidden(&c, nets[0].hidden, nets[0].hidden_count, err,
                                sizeof err) != 0)
    return -1;
  c.batch = nets[0].batch;
  c.epochs = 1;
  mlp_mode modes[2] = {MLP_MODE_FUSED, MLP_MODE_UNFUSED};
  for (int i = 0; i < 2; i++) {
    trainer *t = NULL;
    epoch_stats s;
    c.mode = modes[i];
    int status = trainer_create(&t, ctx, data, &c);
    if (status == 0) status = trainer_run_epoch(t, 0, &s);
    if (status == 0) {
      printf("profiling one %s step\n", i ? "unfused" : "fused");
      fflush(stdout);
      cudaProfilerStart();
      status = trainer_step_once(t);
      cudaProfilerStop();
    }
    trainer_destroy(t);
    if (status != 0) return -1;
  }
  return 0;
}

/* The ceilings, the legend and the table header (and the JSON's). */
static void print_preamble(FILE *json, const gpu_context *ctx,
                           const bench_options *o, double peak,
                           float launch_us) {
  printf("mnist_bench: %s (%d SMs); FP32 matmul rate (best of 4096^3, "
         "8192^3, cuBLASLt): %.1f TFLOP/s\n",
         ctx->device_name, ctx->sm_count, peak);
  printf("one dependent kernel in a CUDA graph (empty kernel): %.2f us\n",
         launch_us);
  printf("%d timed epochs per row after one warm-up epoch, rows interleaved "
         "round-robin; median (min-max). FP32: autotune exact (the default);\n"
         "FP32*: autotune fast; TF32: TF32 tensor cores, autotune exact.\n\n",
         o->repeats);
  printf("kernels: per step / on its longest chain; floor: that chain x one "
         "launch x steps (ms per epoch)\n\n");
  printf("%-18s %6s  %-8s %-5s %-4s %9s %11s %9s %8s %7s %8s %7s %9s\n",
         "network", "batch", "mode", "math", "graph", "ms/epoch", "(min-max)",
         "us/step", "kernels", "floor", "TFLOP/s", "of peak", "test acc");
  if (json)
    fprintf(json,
            "{\n  \"gpu\": \"%s\",\n  \"fp32_matmul_tflops\": %.3f,\n"
            "  \"launch_us\": %.3f,\n  \"training\": [\n",
            ctx->device_name, peak, launch_us);
}

/* Everything after the data and the GPU are known to be there. */
static int run(const bench_options *o, const mnist_dataset *data) {
  gpu_context *contexts[CONTEXTS] = {NULL, NULL, NULL};
  gpu_options options[CONTEXTS] = {{o->device, 0, GPU_AUTOTUNE_EXACT},
                                   {o->device, 0, GPU_AUTOTUNE_FAST},
                                   {o->device, 1, GPU_AUTOTUNE_EXACT}};
  FILE *json = NULL;
  int status = EXIT_FAILURE;
  double peak = 0, peak8 = 0;
  float launch_us = 0;
  for (int i = 0; i < CONTEXTS; i++)
    if (gpu_context_create(&contexts[i], &options[i]) != 0) goto done;
  if (o->profile) {
    if (profile_steps(data, contexts[CONTEXT_FP32]) == 0) status = EXIT_SUCCESS;
    goto done;
  }
  if (o->json_path && !(json = fopen(o->json_path, "w"))) {
    perror(o->json_path);
    goto done;
  }
  if (bench_matmul_rate(contexts[CONTEXT_FP32_FAST], 4096, &peak) != 0 ||
      bench_matmul_rate(contexts[CONTEXT_FP32_FAST], 8192, &peak8) != 0 ||
      bench_launch_cost(contexts[CONTEXT_FP32], &launch_us) != 0)
    goto done;
  if (peak8 > peak) peak = peak8;
  print_preamble(json, contexts[0], o, peak, launch_us);
  for (int i = 0; i < NETS; i++)
    if (bench_network(json, &nets[i], data, o, contexts, peak, launch_us,
                      i == 0) != 0)
      goto done;
  if (json) fprintf(json, "\n  ],\n  \"layers\": [\n");
  int first = 1;
  if (!o->skip_layers && bench_layers(json, contexts[0], &first) != 0)
    goto done;
  if (json) fprintf(json, "\n  ]\n}\n");
  status = EXIT_SUCCESS;
done:
  if (status != EXIT_SUCCESS)
    fprintf(stderr, "mnist_bench: failed (see above)\n");
  if (json && fclose(json) != 0) {
    perror(o->json_path);
    status = EXIT_FAILURE;
  }
  for (int i = CONTEXTS - 1; i >= 0; i--)
    gpu_context_destroy(contexts[i]);
  return status;
}

int main(int argc, char **argv) {
  bench_options o;
  char err[512];
  if (bench_options_parse(&o, argc, argv, err, sizeof err) != 0) {
    fprintf(stderr, "mnist_bench: %s\n\n", err);
    bench_options_usage(stderr);
    return 2;
  }
  if (o.help) {
    bench_options_usage(stdout);
    return EXIT_SUCCESS;
  }
  char dir[4096];
  mnist_dataset data;
  if (data_source_load(&data, dir, sizeof dir, o.data_dir, MNIST_SOURCE_DIR,
                       "mnist_bench") != 0)
    return EXIT_FAILURE;
  char why[256];
  if (!gpu_device_available(why, sizeof why)) {
    fprintf(stderr, "mnist_bench: needs a CUDA GPU: %s\n", why);
    mnist_dataset_destroy(&data);
    return EXIT_FAILURE;
  }
  int status = run(&o, &data);
  mnist_dataset_destroy(&data);
  return status;
}
