/* mnist_bench.c: fused against unfused training speed, measured side by
 * side in one run. For each network it trains fused and unfused (FP32 and
 * TF32, graphs on; fused FP32 also with graphs off) round-robin, one epoch
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
#include "../gpu/kernels.h"
#include "../gpu/lt_matmul.h"
#include "../gpu/lt_unfused.h"
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
  int context;  /* index into the contexts: FP32 exact, FP32 fast, TF32 */
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
enum { VARIANTS = sizeof variants / sizeof variants[0], MAX_REPEATS = 101 };

typedef struct bench_options {
  char data_dir[4096];
  const char *given_dir;
  const char *json_path;
  int repeats;
  int device;
  int skip_layers;
  int profile;   /* --profile-step: one fused and one unfused step only */
} bench_options;


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
  trainer_config c;
  trainer_config_init(&c, net->hidden, net->hidden_count, net->batch);
  c.epochs = o->repeats + 1;
  trainer *t[VARIANTS] = {0};
  float times[VARIANTS][MAX_REPEATS];
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
      if (status == 0 && round > 0) times[v][round - 1] = s.train_ms;
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
    printf("%-18s %6d  %-8s %-5s %-4s %9.2f (%.2f-%.2f) %9.1f %4d/%-3d %7.2f %8.1f %6.1f%% %8.2f%%\n",
           name, net->batch, variants[v].name, context_names[variants[v].context],
           variants[v].graphs ? "on" : "off", r[v].median, r[v].lo, r[v].hi,
           1000.0 * r[v].median / steps, r[v].kernels, r[v].critical,
           floor_ms, tflops,
           100.0 * tflops / peak_tflops, 100.0 * r[v].accuracy);
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
              r[v].critical, floor_ms, tflops,
              tflops / peak_tflops, speedup, r[v].accuracy, o->repeats);
  }
  for (int v = 0; v < VARIANTS; v++) trainer_destroy(t[v]);
  return status;
}

typedef int (*layer_op)(gpu_context *ctx, const lt_matmul_call *call);

/* What a timed graph holds: `count` launches of one enqueue function. */
typedef struct timed_work {
  int (*enqueue)(gpu_context *ctx, const struct timed_work *work);
  layer_op op;                /* for enqueue_op */
  const lt_matmul_call *call; /* for enqueue_op */
} timed_work;

static int enqueue_op(gpu_context *ctx, const timed_work *work) {
  return work->op(ctx, work->call);
}

static int enqueue_empty(gpu_context *ctx, const timed_work *work) {
  (void)work;
  return gpu_empty_kernel(ctx->stream);
}

/* Median microseconds per item of `count` items captured into a CUDA graph
 * and replayed (after one warm-up replay). */
static int time_graph(gpu_context *ctx, const timed_work *work, int count,
                      float *us) {
  enum { REPLAYS = 9 };
  cudaGraph_t graph = NULL;
  cudaGraphExec_t exec = NULL;
  CUDA_CHECK(cudaStreamBeginCapture(ctx->stream, cudaStreamCaptureModeThreadLocal));
  int status = 0;
  for (int i = 0; i < count && status == 0; i++) status = work->enqueue(ctx, work);
  cudaError_t end = cudaStreamEndCapture(ctx->stream, &graph);
  if (status != 0 || end != cudaSuccess) {
    if (end == cudaSuccess) cudaGraphDestroy(graph);
    return -1;
  }
  cudaError_t inst = cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphDestroy(graph);
  CUDA_CHECK(inst);
  cudaEvent_t ev[2];
  CUDA_CHECK(cudaEventCreate(&ev[0]));
  CUDA_CHECK(cudaEventCreate(&ev[1]));
  float samples[REPLAYS], lo, hi;
  CUDA_CHECK(cudaGraphLaunch(exec, ctx->stream));
  for (int r = 0; r < REPLAYS; r++) {
    CUDA_CHECK(cudaEventRecord(ev[0], ctx->stream));
    CUDA_CHECK(cudaGraphLaunch(exec, ctx->stream));
    CUDA_CHECK(cudaEventRecord(ev[1], ctx->stream));
    CUDA_CHECK(cudaEventSynchronize(ev[1]));
    CUDA_CHECK(cudaEventElapsedTime(&samples[r], ev[0], ev[1]));
  }
  cudaEventDestroy(ev[0]);
  cudaEventDestroy(ev[1]);
  cudaGraphExecDestroy(exec);
  sample_stats(samples, REPLAYS, us, &lo, &hi);
  *us *= 1000.0f / count;
  return 0;
}

/* Median microseconds per call of `op` from graph replays of 20 calls
 * (one call first builds the plan, outside the capture). */
static int time_op(gpu_context *ctx, layer_op op, const lt_matmul_call *call,
                   float *us) {
  if (op(ctx, call) != 0) return -1;
  timed_work work = {enqueue_op, op, call};
  return time_graph(ctx, &work, 20, us);
}

typedef struct layer_size {
  int in, out, n;
} layer_size;

static const layer_size layer_sizes[] = {
    {784, 100, 256},   {784, 1024, 256},   {1024, 1024, 256},
    {1024, 1024, 4096}, {784, 4096, 4096}, {4096, 4096, 4096},
};

/* Buffers of one layer, random-filled by cuRAND (never zeros). */
typedef struct layer_buffers {
  float *d_w, *d_x, *d_b, *d_y, *d_dz, *d_dx, *d_db;
  uint8_t *d_mask_out, *d_mask_in;
} layer_buffers;

static int layer_alloc(gpu_context *ctx, layer_buffers *b, const layer_size *s) {
  size_t in = (size_t)s->in, out = (size_t)s->out, n = (size_t)s->n;
  float **f[7] = {&b->d_w, &b->d_x, &b->d_b, &b->d_y, &b->d_dz, &b->d_dx, &b->d_db};
  size_t counts[7] = {in * out, in * n, out, out * n, out * n, in * n, in};
  for (int i = 0; i < 7; i++) {
    CUDA_CHECK(cudaMalloc((void **)f[i], (counts[i] + 1) * sizeof(float)));
    CURAND_CHECK(curandGenerateNormal(ctx->rng, *f[i], counts[i] + (counts[i] & 1),
                                      0.0f, 1.0f));
  }
  CUDA_CHECK(cudaMalloc((void **)&b->d_mask_out, lt_aux_bytes(s->out, s->n)));
  CUDA_CHECK(cudaMalloc((void **)&b->d_mask_in, lt_aux_bytes(s->in, s->n)));
  CUDA_CHECK(cudaMemsetAsync(b->d_mask_in, 0x5A, lt_aux_bytes(s->in, s->n), ctx->stream));
  return 0;
}

static void layer_free(layer_buffers *b) {
  float *f[7] = {b->d_w, b->d_x, b->d_b, b->d_y, b->d_dz, b->d_dx, b->d_db};
  for (int i = 0; i < 7; i++) cudaFree(f[i]);
  cudaFree(b->d_mask_out);
  cudaFree(b->d_mask_in);
}

static int bench_layers(FILE *json, gpu_context *ctx, int *first) {
  printf("\nsingle layers, FP32, median us per call from CUDA-graph replays\n");
  printf("%-22s %-9s %10s %10s %10s %9s\n", "in->out, batch", "pass",
         "matmul", "fused", "unfused", "speedup");
  for (size_t i = 0; i < sizeof layer_sizes / sizeof layer_sizes[0]; i++) {
    const layer_size *s = &layer_sizes[i];
    layer_buffers b = {0};
    int status = layer_alloc(ctx, &b, s);
    /* Forward: Y (out, n) = Wt^T X + b, ReLU, mask. Backward data:
     * dX (in, n) = Wt dZ masked by the layer below's bits, its db. */
    lt_matmul_call forward = {s->out, s->n, s->in, 1, 0, b.d_w, s->in, b.d_x,
                              s->in, b.d_y, s->out, LT_EPILOGUE_RELU_AUX_BIAS,
                              b.d_b, b.d_mask_out, lt_aux_ld(s->out)};
    lt_matmul_call backward = {s->in, s->n, s->out, 0, 0, b.d_w, s->in, b.d_dz,
                               s->out, b.d_dx, s->in, LT_EPILOGUE_DRELU_BGRAD,
                               b.d_db, b.d_mask_in, lt_aux_ld(s->in)};
    lt_matmul_call *calls[2] = {&forward, &backward};
    const char *pass[2] = {"forward", "backward"};
    for (int p = 0; p < 2 && status == 0; p++) {
      lt_matmul_call plain = *calls[p];
      plain.epilogue = LT_EPILOGUE_DEFAULT;
      plain.d_bias = NULL;
      plain.d_aux = NULL;
      plain.aux_ld = 0;
      float us[3];
      status = time_op(ctx, lt_matmul, &plain, &us[0]);
      if (status == 0) status = time_op(ctx, lt_matmul, calls[p], &us[1]);
      if (status == 0) status = time_op(ctx, lt_matmul_unfused, calls[p], &us[2]);
      if (status != 0) break;
      char label[64];
      snprintf(label, sizeof label, "%d->%d, %d", s->in, s->out, s->n);
      printf("%-22s %-9s %10.1f %10.1f %10.1f %8.2fx\n", label, pass[p], us[0],
             us[1], us[2], us[2] / us[1]);
      if (json)
        fprintf(json,
                "%s    {\"in\": %d, \"out\": %d, \"batch\": %d, \"pass\": "
                "\"%s\", \"matmul_us\": %.3f, \"fused_us\": %.3f, "
                "\"unfused_us\": %.3f, \"speedup\": %.4f}",
                *first ? "" : ",\n", s->in, s->out, s->n, pass[p], us[0],
                us[1], us[2], us[2] / us[1]);
      *first = 0;
    }
    CUDA_CHECK(cudaStreamSynchronize(ctx->stream));
    layer_free(&b);
    if (status != 0) return -1;
  }
  return 0;
}

/* The GPU's FP32 matmul rate: a square DEFAULT matmul through the same
 * wrapper (autotune fast: the best the library offers), timed from graph
 * replays. */
static int measure_peak(gpu_context *ctx, int size, double *tflops) {
  float *d = NULL;
  size_t count = (size_t)size * size;
  CUDA_CHECK(cudaMalloc((void **)&d, 3 * count * sizeof(float)));
  CURAND_CHECK(curandGenerateNormal(ctx->rng, d, 3 * count, 0.0f, 1.0f));
  lt_matmul_call call = {size, size, size, 0, 0, d, size, d + count, size,
                         d + 2 * count, size, LT_EPILOGUE_DEFAULT, NULL, NULL, 0};
  float us = 0;
  int status = time_op(ctx, lt_matmul, &call, &us);
  cudaFree(d);
  if (status != 0) return -1;
  *tflops = 2.0 * size * (double)size * size / (us * 1e-6) / 1e12;
  return 0;
}

/* One fused then one unfused step of the seed network, each after a
 * warm-up epoch, inside cudaProfilerStart/Stop. */
static int profile_steps(const mnist_dataset *data, gpu_context *ctx) {
  trainer_config c;
  trainer_config_init(&c, nets[0].hidden, nets[0].hidden_count, nets[0].batch);
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

/* Microseconds per kernel in a graph of 200 dependent empty kernels: the
 * least any kernel on a step's critical path costs. */
static int measure_launch(gpu_context *ctx, float *us) {
  timed_work work = {enqueue_empty, NULL, NULL};
  return time_graph(ctx, &work, 200, us);
}

static void usage(FILE *out) {
  fprintf(out,
          "usage: mnist_bench [--repeats N] [--json FILE] [--data-dir DIR]\n"
          "                   [--device N] [--no-layers] [--profile-step]\n"
          "Trains fused and unfused side by side (one warm-up epoch, then N\n"
          "interleaved timed epochs each, default 5) at 784-100-10 batch 256,\n"
          "784-1024-1024-10 batch 256 and 784-4096-4096-10 batch 4096, then\n"
          "times single layers. --json writes the same numbers.\n"
          "--profile-step: instead, after a warm-up epoch, runs one fused and\n"
          "then one unfused step of 784-100-10 batch 256 from the host between\n"
          "cudaProfilerStart and Stop, for\n"
          "  ncu --profile-from-start off --clock-control none mnist_bench "
          "--profile-step\n");
}

static int parse(bench_options *o, int argc, char **argv) {
  memset(o, 0, sizeof *o);
  o->repeats = 5;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
    if (strcmp(a, "--help") == 0) {
      usage(stdout);
      exit(EXIT_SUCCESS);
    } else if (strcmp(a, "--no-layers") == 0) {
      o->skip_layers = 1;
    } else if (strcmp(a, "--profile-step") == 0) {
      o->profile = 1;
    } else if (v && strcmp(a, "--repeats") == 0) {
      o->repeats = atoi(v);
      i++;
      if (o->repeats < 1 || o->repeats > MAX_REPEATS - 1) {
        fprintf(stderr, "mnist_bench: --repeats: expected 1 to %d, found '%s'\n",
                MAX_REPEATS - 1, v);
        return -1;
      }
    } else if (v && strcmp(a, "--json") == 0) {
      o->json_path = argv[++i];
    } else if (v && strcmp(a, "--data-dir") == 0) {
      o->given_dir = argv[++i];
    } else if (v && strcmp(a, "--device") == 0) {
      o->device = atoi(argv[++i]);
    } else {
      fprintf(stderr, "mnist_bench: unknown or incomplete flag '%s'\n\n", a);
      usage(stderr);
      return -1;
    }
  }
  return 0;
}

int main(int argc, char **argv) {
  bench_options o;
  if (parse(&o, argc, argv) != 0) return 2;
  if (train_find_data_dir(o.data_dir, sizeof o.data_dir, o.given_dir,
                          MNIST_SOURCE_DIR) != 0)
    return EXIT_FAILURE;
  mnist_dataset data;
  idx_error err;
  if (mnist_dataset_load(&data, o.data_dir, &err) != IDX_OK) {
    fprintf(stderr, "mnist_bench: %s\n", err.message);
    return EXIT_FAILURE;
  }
  char why[256];
  if (!gpu_device_available(why, sizeof why)) {
    fprintf(stderr, "mnist_bench: needs a CUDA GPU: %s\n", why);
    mnist_dataset_destroy(&data);
    return EXIT_FAILURE;
  }
  gpu_context *contexts[CONTEXTS] = {NULL, NULL, NULL};
  gpu_options options[CONTEXTS] = {{o.device, 1, 0, GPU_AUTOTUNE_EXACT},
                                   {o.device, 1, 0, GPU_AUTOTUNE_FAST},
                                   {o.device, 1, 1, GPU_AUTOTUNE_EXACT}};
  FILE *json = NULL;
  int status = EXIT_FAILURE;
  double peak = 0, peak8 = 0;
  for (int i = 0; i < CONTEXTS; i++)
    if (gpu_context_create(&contexts[i], &options[i]) != 0) goto done;
  if (o.profile) {
    status = profile_steps(&data, contexts[CONTEXT_FP32]) == 0 ? EXIT_SUCCESS
                                                               : EXIT_FAILURE;
    goto done;
  }
  if (o.json_path && !(json = fopen(o.json_path, "w"))) {
    perror(o.json_path);
    goto done;
  }
  if (measure_peak(contexts[CONTEXT_FP32_FAST], 4096, &peak) != 0 ||
      measure_peak(contexts[CONTEXT_FP32_FAST], 8192, &peak8) != 0)
    goto done;
  if (peak8 > peak) peak = peak8;
  float launch_us = 0;
  if (measure_launch(contexts[CONTEXT_FP32], &launch_us) != 0) goto done;
  printf("mnist_bench: %s (%d SMs); FP32 matmul rate (best of 4096^3, "
         "8192^3, cuBLASLt): %.1f TFLOP/s\n",
         contexts[0]->device_name, contexts[0]->sm_count, peak);
  printf("one dependent kernel in a CUDA graph (empty kernel): %.2f us\n",
         launch_us);
  printf("%d timed epochs per row after one warm-up epoch, rows interleaved "
         "round-robin; median (min-max). FP32: autotune exact (the default);\n"
         "FP32*: autotune fast; TF32: TF32 tensor cores, autotune exact.\n\n",
         o.repeats);
  printf("kernels: per step / on its longest chain; floor: that chain x one "
         "launch x steps (ms per epoch)\n\n");
  printf("%-18s %6s  %-8s %-5s %-4s %9s %11s %9s %8s %7s %8s %7s %9s\n",
         "network", "batch", "mode", "math", "graph", "ms/epoch", "(min-max)",
         "us/step", "kernels", "floor", "TFLOP/s", "of peak", "test acc");
  if (json)
    fprintf(json, "{\n  \"gpu\": \"%s\",\n  \"fp32_matmul_tflops\": %.3f,\n"
                  "  \"launch_us\": %.3f,\n  \"training\": [\n",
            contexts[0]->device_name, peak, launch_us);
  for (int i = 0; i < NETS; i++)
    if (bench_network(json, &nets[i], &data, &o, contexts, peak, launch_us,
                      i == 0) != 0)
      goto done;
  if (json) fprintf(json, "\n  ],\n  \"layers\": [\n");
  int first = 1;
  if (!o.skip_layers && bench_layers(json, contexts[0], &first) != 0) goto done;
  if (json) fprintf(json, "\n  ]\n}\n");
  status = EXIT_SUCCESS;
done:
  if (status != EXIT_SUCCESS) fprintf(stderr, "mnist_bench: failed (see above)\n");
  if (json && fclose(json) != 0) status = EXIT_FAILURE;
  for (int i = CONTEXTS - 1; i >= 0; i--) gpu_context_destroy(contexts[i]);
  mnist_dataset_destroy(&data);
  return status;
}
