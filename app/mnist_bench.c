/* mnist_bench.c: fused against unfused training speed, measured side by
 * side in one run. For each network it trains fused, unfused and auto in
 * every precision (FP32, TF32, BF16, FP16; graphs on) and FP32 fused and
 * unfused with graphs off, round-robin, one epoch of each per round, after
 * one warm-up epoch each; epochs are timed with CUDA events and reported
 * as median (min-max). Then it times single
 * layers: forward RELU_AUX_BIAS against matmul + bias + ReLU kernels, and
 * backward DRELU_BGRAD against matmul + mask + reduction, each as the
 * median of CUDA-graph replays. The only other place that exits. */
#include <cuda_profiler_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app/bench_options.h"
#include "app/train_options.h"
#include "bench/bench_layers.h"
#include "bench/bench_timing.h"
#include "data/mnist.h"
#include "gpu/gpu_check.h"
#include "gpu/sample_stats.h"
#include "train/data_source.h"
#include "train/trainer.h"

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
  mlp_mode mode;
  gpu_precision precision; /* the context: one per precision */
  int graphs;
  int pad_units; /* widths padded to 8 (mlp_options.pad_units) */
  lt_activation activation;
} variant;

/* Every precision fused, unfused and auto with graphs (interleaved, so
 * twins run side by side), BF16 again with the widths padded to 8 (pad),
 * FP32 fused and unfused launched from the host, then every precision
 * fused, unfused and auto with GELU. A fused row always comes first of
 * its group: the unfused and auto rows compare with it. */
static const variant variants[] = {
    {MLP_MODE_FUSED, GPU_PRECISION_FP32, 1, 0, LT_ACTIVATION_RELU},
    {MLP_MODE_UNFUSED, GPU_PRECISION_FP32, 1, 0, LT_ACTIVATION_RELU},
    {MLP_MODE_AUTO, GPU_PRECISION_FP32, 1, 0, LT_ACTIVATION_RELU},
    {MLP_MODE_FUSED, GPU_PRECISION_TF32, 1, 0, LT_ACTIVATION_RELU},
    {MLP_MODE_UNFUSED, GPU_PRECISION_TF32, 1, 0, LT_ACTIVATION_RELU},
    {MLP_MODE_AUTO, GPU_PRECISION_TF32, 1, 0, LT_ACTIVATION_RELU},
    {MLP_MODE_FUSED, GPU_PRECISION_BF16, 1, 0, LT_ACTIVATION_RELU},
    {MLP_MODE_UNFUSED, GPU_PRECISION_BF16, 1, 0, LT_ACTIVATION_RELU},
    {MLP_MODE_AUTO, GPU_PRECISION_BF16, 1, 0, LT_ACTIVATION_RELU},
    {MLP_MODE_FUSED, GPU_PRECISION_FP16, 1, 0, LT_ACTIVATION_RELU},
    {MLP_MODE_UNFUSED, GPU_PRECISION_FP16, 1, 0, LT_ACTIVATION_RELU},
    {MLP_MODE_AUTO, GPU_PRECISION_FP16, 1, 0, LT_ACTIVATION_RELU},
    {MLP_MODE_FUSED, GPU_PRECISION_BF16, 1, 1, LT_ACTIVATION_RELU},
    {MLP_MODE_UNFUSED, GPU_PRECISION_BF16, 1, 1, LT_ACTIVATION_RELU},
    {MLP_MODE_AUTO, GPU_PRECISION_BF16, 1, 1, LT_ACTIVATION_RELU},
    {MLP_MODE_FUSED, GPU_PRECISION_FP32, 0, 0, LT_ACTIVATION_RELU},
    {MLP_MODE_UNFUSED, GPU_PRECISION_FP32, 0, 0, LT_ACTIVATION_RELU},
    {MLP_MODE_FUSED, GPU_PRECISION_FP32, 1, 0, LT_ACTIVATION_GELU},
    {MLP_MODE_UNFUSED, GPU_PRECISION_FP32, 1, 0, LT_ACTIVATION_GELU},
    {MLP_MODE_AUTO, GPU_PRECISION_FP32, 1, 0, LT_ACTIVATION_GELU},
    {MLP_MODE_FUSED, GPU_PRECISION_TF32, 1, 0, LT_ACTIVATION_GELU},
    {MLP_MODE_UNFUSED, GPU_PRECISION_TF32, 1, 0, LT_ACTIVATION_GELU},
    {MLP_MODE_AUTO, GPU_PRECISION_TF32, 1, 0, LT_ACTIVATION_GELU},
    {MLP_MODE_FUSED, GPU_PRECISION_BF16, 1, 0, LT_ACTIVATION_GELU},
    {MLP_MODE_UNFUSED, GPU_PRECISION_BF16, 1, 0, LT_ACTIVATION_GELU},
    {MLP_MODE_AUTO, GPU_PRECISION_BF16, 1, 0, LT_ACTIVATION_GELU},
    {MLP_MODE_FUSED, GPU_PRECISION_FP16, 1, 0, LT_ACTIVATION_GELU},
    {MLP_MODE_UNFUSED, GPU_PRECISION_FP16, 1, 0, LT_ACTIVATION_GELU},
    {MLP_MODE_AUTO, GPU_PRECISION_FP16, 1, 0, LT_ACTIVATION_GELU},
};
enum { VARIANTS = sizeof variants / sizeof variants[0] };

/* Whether --precision and --activation keep variant v. */
static int wanted(const bench_options *o, int v) {
  return (o->precision < 0 || (int)variants[v].precision == o->precision) &&
         (o->activation < 0 || (int)variants[v].activation == o->activation);
}

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
                         gpu_context *const *contexts, const double *peaks,
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
    if (!wanted(o, v)) continue;
    c.mode = variants[v].mode;
    c.graphs = variants[v].graphs;
    c.pad_units = variants[v].pad_units;
    c.activation = variants[v].activation;
    status = trainer_create(&t[v], contexts[variants[v].precision], data, &c);
    if (status == 0)
      status = trainer_kernels_per_step(t[v], &r[v].kernels, &r[v].critical);
  }
  epoch_stats s;
  /* Round 0 warms up (first replay of each graph, clocks); rounds 1..R
   * are timed, each variant once per round. */
  for (int round = 0; round <= o->repeats && status == 0; round++)
    for (int v = 0; v < VARIANTS && status == 0; v++) {
      if (!wanted(o, v)) continue;
      status = trainer_run_epoch(t[v], round, &s);
      if (status > 0)
        fprintf(stderr, "mnist_bench: %s %s diverged (loss %g)\n",
                mlp_mode_name(variants[v].mode),
                gpu_precision_name(variants[v].precision), s.train_loss);
      if (status != 0) break;
      if (round > 0) times[v][round - 1] = s.train_ms;
      r[v].accuracy = s.test_accuracy;
    }
  char name[64];
  trainer_config_name(name, sizeof name, &c);
  int first_wanted = 0;
  while (first_wanted < VARIANTS && !t[first_wanted])
    first_wanted++;
  int steps = status == 0 && first_wanted < VARIANTS
                  ? trainer_steps_per_epoch(t[first_wanted])
                  : 1;
  double flops = epoch_flops(&c, data->train.count);
  int printed = 0;
  for (int v = 0; v < VARIANTS && status == 0; v++) {
    if (!wanted(o, v)) continue;
    sample_stats(times[v], o->repeats, &r[v].median, &r[v].lo, &r[v].hi);
    /* The speedup column: this row's median over the fused twin's (same
     * precision and graphs: the row before for unfused, two before for
     * auto): how much slower than fused it is; 1 for fused rows. */
    int twin = v - (int)variants[v].mode;
    double speedup = r[v].median / r[twin].median;
    double tflops = flops / (r[v].median * 1e-3) / 1e12;
    double peak = peaks[variants[v].precision];
    char mode[32];
    snprintf(mode, sizeof mode, "%s%s%s", mlp_mode_name(variants[v].mode),
             variants[v].pad_units ? "+pad" : "",
             variants[v].activation == LT_ACTIVATION_GELU ? "+gelu" : "");
    const char *precision = gpu_precision_name(variants[v].precision);
    const char *graphs = variants[v].graphs ? "true" : "false";
    /* The floor: the longest chain of dependent kernels, each costing
     * at least one empty-kernel launch. */
    double floor_ms = steps * r[v].critical * launch_us / 1000.0;
    printf("%-18s %6d  %-8s %-5s %-4s %9.2f (%.2f-%.2f) %9.1f %4d/%-3d %7.2f "
           "%8.1f %6.1f%% %8.2f%%",
           name, net->batch, mode, precision, variants[v].graphs ? "on" : "off",
           r[v].median, r[v].lo, r[v].hi, 1000.0 * r[v].median / steps,
           r[v].kernels, r[v].critical, floor_ms, tflops, 100.0 * tflops / peak,
           100.0 * r[v].accuracy);
    if (variants[v].mode != MLP_MODE_FUSED)
      printf("  %.2fx fused's speed", 1.0 / speedup);
    printf("\n");
    if (json)
      fprintf(json,
              "%s    {\"network\": \"%s\", \"batch\": %d, \"mode\": \"%s\", "
              "\"precision\": \"%s\", \"graphs\": %s, \"ms_per_epoch\": %.4f, "
              "\"ms_min\": %.4f, \"ms_max\": %.4f, \"us_per_step\": %.3f, "
              "\"kernels_per_step\": %d, \"critical_path_kernels\": %d, "
              "\"launch_floor_ms\": %.4f, \"tflops\": %.3f, "
              "\"fraction_of_peak\": %.4f, \"speedup_vs_fused\": %.4f, "
              "\"test_accuracy\": %.4f, \"repeats\": %d, \"pad_units\": %s, "
              "\"activation\": \"%s\"}",
              first && !printed ? "" : ",\n", name, net->batch,
              mlp_mode_name(variants[v].mode), precision, graphs, r[v].median,
              r[v].lo, r[v].hi, 1000.0 * r[v].median / steps, r[v].kernels,
              r[v].critical, floor_ms, tflops, tflops / peak, speedup,
              r[v].accuracy, o->repeats,
              variants[v].pad_units ? "true" : "false",
              lt_activation_name(variants[v].activation));
    printed = 1;
  }
  for (int v = 0; v < VARIANTS; v++)
    trainer_destroy(t[v]);
  return status;
}

/* One fused then one unfused step of each network named by --profile-step
 * in the context's precision, each after a warm-up epoch, inside
 * cudaProfilerStart/Stop (for Nsight Compute). */
static int profile_steps(const mnist_dataset *data, gpu_context *ctx,
                         lt_activation activation) {
  mlp_mode modes[2] = {MLP_MODE_FUSED, MLP_MODE_UNFUSED};
  for (int n = 0; n < NETS; n++) {
    trainer_config c = trainer_config_defaults();
    char err[128], name[64];
    if (trainer_config_set_hidden(&c, nets[n].hidden, nets[n].hidden_count, err,
                                  sizeof err) != 0)
      return -1;
    c.batch = nets[n].batch;
    c.epochs = 1;
    c.activation = activation;
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

/* Every call of one step of each network, in each wanted precision, with
 * ReLU (or --activation's): a fused trainer per network and precision,
 * trained one epoch, its calls timed (bench_layers.h). */
static int bench_calls(FILE *json, const mnist_dataset *data,
                       const bench_options *o, gpu_context *const *contexts) {
  lt_activation act =
      o->activation < 0 ? LT_ACTIVATION_RELU : (lt_activation)o->activation;
  int first = 1;
  bench_layer_calls_header();
  for (int i = 0; i < NETS; i++)
    for (int p = 0; p < GPU_PRECISION_COUNT; p++) {
      if (o->precision >= 0 && p != o->precision) continue;
      trainer_config c = trainer_config_defaults();
      char err[128], name[64];
      if (trainer_config_set_hidden(&c, nets[i].hidden, nets[i].hidden_count,
                                    err, sizeof err) != 0) {
        fprintf(stderr, "mnist_bench: %s\n", err);
        return -1;
      }
      c.batch = nets[i].batch;
      c.epochs = 1;
      c.mode = MLP_MODE_FUSED;
      c.activation = act;
      trainer_config_name(name, sizeof name, &c);
      trainer *t = NULL;
      epoch_stats s;
      int status = trainer_create(&t, contexts[p], data, &c);
      if (status == 0) status = trainer_run_epoch(t, 0, &s);
      if (status == 0)
        status = bench_layer_calls(json, t, contexts[p], name,
                                   gpu_precision_name((gpu_precision)p),
                                   lt_activation_name(act), &first);
      trainer_destroy(t);
      if (status != 0) return -1;
    }
  return 0;
}

/* The ceilings, the legend and the table header (and the JSON's). */
static void print_preamble(FILE *json, const gpu_context *ctx,
                           const bench_options *o, const double *peaks,
                           float launch_us) {
  printf("mnist_bench: %s (%d SMs); matmul rate (best of 4096^3 and 8192^3 "
         "through the wrapper, TFLOP/s):",
         ctx->device_name, ctx->sm_count);
  for (int p = 0; p < GPU_PRECISION_COUNT; p++)
    if (peaks[p] > 0) /* measured: --precision keeps it */
      printf(" %s %.1f", gpu_precision_name((gpu_precision)p), peaks[p]);
  printf("\none dependent kernel in a CUDA graph (empty kernel): %.2f us\n",
         launch_us);
  printf("%d timed epochs per row after one warm-up epoch, rows interleaved "
         "round-robin; median (min-max); autotune %s.\n"
         "auto: per call the faster of fused and unfused (--show-plans of "
         "mnist_train lists the choices).\n\n",
         o->repeats, gpu_autotune_name((gpu_autotune)o->autotune));
  printf("kernels: per step / on its longest chain; floor: that chain x one "
         "launch x steps (ms per epoch); of peak: of the measured matmul "
         "rate of that precision\n\n");
  printf("%-18s %6s  %-8s %-5s %-4s %9s %11s %9s %8s %7s %8s %7s %9s\n",
         "network", "batch", "mode", "prec", "graph", "ms/epoch", "(min-max)",
         "us/step", "kernels", "floor", "TFLOP/s", "of peak", "test acc");
  if (json) {
    fprintf(json, "{\n  \"gpu\": \"%s\",\n  \"matmul_tflops\": {",
            ctx->device_name);
    int listed = 0;
    for (int p = 0; p < GPU_PRECISION_COUNT; p++)
      if (peaks[p] > 0)
        fprintf(json, "%s\"%s\": %.3f", listed++ ? ", " : "",
                gpu_precision_name((gpu_precision)p), peaks[p]);
    fprintf(json,
            "},\n  \"launch_us\": %.3f,\n  \"autotune\": \"%s\",\n"
            "  \"training\": [\n",
            launch_us, gpu_autotune_name((gpu_autotune)o->autotune));
  }
}

/* Everything after the data and the GPU are known to be there. */
static int run(const bench_options *o, const mnist_dataset *data) {
  gpu_context *contexts[GPU_PRECISION_COUNT] = {NULL};
  FILE *json = NULL;
  int status = EXIT_FAILURE;
  double peaks[GPU_PRECISION_COUNT] = {0};
  float launch_us = 0;
  for (int p = 0; p < GPU_PRECISION_COUNT; p++) {
    gpu_options options = gpu_options_defaults();
    options.device = o->device;
    options.precision = (gpu_precision)p;
    options.autotune = (gpu_autotune)o->autotune;
    if (gpu_context_create(&contexts[p], &options) != 0) goto done;
  }
  if (o->profile) {
    if (profile_steps(data, contexts[o->precision < 0 ? 0 : o->precision],
                      o->activation < 0 ? LT_ACTIVATION_RELU
                                        : (lt_activation)o->activation) == 0)
      status = EXIT_SUCCESS;
    goto done;
  }
  if (o->json_path && !(json = fopen(o->json_path, "w"))) {
    perror(o->json_path);
    goto done;
  }
  for (int p = 0; p < GPU_PRECISION_COUNT; p++) {
    double rate4 = 0, rate8 = 0;
    if (o->precision >= 0 && p != o->precision) continue;
    if (bench_matmul_rate(contexts[p], 4096, &rate4) != 0 ||
        bench_matmul_rate(contexts[p], 8192, &rate8) != 0)
      goto done;
    peaks[p] = rate8 > rate4 ? rate8 : rate4;
  }
  if (bench_launch_cost(contexts[0], &launch_us) != 0) goto done;
  print_preamble(json, contexts[0], o, peaks, launch_us);
  for (int i = 0; i < NETS; i++)
    if (bench_network(json, &nets[i], data, o, contexts, peaks, launch_us,
                      i == 0) != 0)
      goto done;
  if (json) fprintf(json, "\n  ],\n  \"calls\": [\n");
  if (!o->skip_layers && bench_calls(json, data, o, contexts) != 0) goto done;
  if (json) fprintf(json, "\n  ]\n}\n");
  status = EXIT_SUCCESS;
done:
  if (status != EXIT_SUCCESS)
    fprintf(stderr, "mnist_bench: failed (see above)\n");
  if (json && fclose(json) != 0) {
    perror(o->json_path);
    status = EXIT_FAILURE;
  }
  for (int p = GPU_PRECISION_COUNT - 1; p >= 0; p--)
    gpu_context_destroy(contexts[p]);
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
                       "mnist_bench", 0) != 0)
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
