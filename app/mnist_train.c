/* mnist_train.c: the command-line trainer. Parses flags, loads and
 * validates the data (before touching the GPU), trains, reports. The only
 * place, with mnist_bench.c, that exits. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../data/mnist.h"
#include "../gpu/gpu_context.h"
#include "../gpu/lt_matmul.h"
#include "sample_stats.h"
#include "train_options.h"
#include "trainer.h"

#ifndef MNIST_SOURCE_DIR
#define MNIST_SOURCE_DIR "."
#endif

enum { EXIT_USAGE = 2 };

static double seconds_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void config_from_options(trainer_config *c, const train_options *o) {
  trainer_config_init(c, o->hidden, o->hidden_count, o->batch);
  c->epochs = o->epochs;
  c->cosine = !o->constant_lr;
  c->lr = o->lr;
  c->momentum = o->momentum;
  c->seed = o->seed;
  c->mode = o->unfused ? MLP_MODE_UNFUSED : MLP_MODE_FUSED;
  c->graphs = o->graphs;
}

static void print_header(const gpu_context *ctx, const trainer_config *c,
                         const train_options *o, const mnist_dataset *data,
                         const char *dir, const trainer *t) {
  char name[256];
  trainer_config_name(name, sizeof name, c);
  printf("mnist_train: %s (%d SMs), device %d\n", ctx->device_name,
         ctx->sm_count, o->device);
  printf("network    %s, %zu parameters\n", name,
         trainer_network(t)->layout.param_count);
  printf("training   %s, %s, batch %d, lr %g (%s), momentum %g, seed %llu, "
         "%d epochs, graphs %s, autotune %s\n",
         o->unfused ? "unfused" : "fused", o->tf32 ? "TF32" : "FP32",
         c->batch, c->lr, c->cosine ? "cosine" : "constant", c->momentum,
         c->seed, o->epochs,
         o->graphs ? "on" : "off",
         o->autotune == 2 ? "fast" : o->autotune == 1 ? "exact" : "off");
  printf("data       %s: %d train, %d test, %d steps per epoch\n\n", dir,
         data->train.count, data->test.count, trainer_steps_per_epoch(t));
  printf("epoch  train_loss  train_acc  test_loss  test_acc  train_ms  "
         "samples/s\n");
}

/* What the wrapper built and, when it autotuned, what it kept. */
static void print_plans(const gpu_context *ctx) {
  int count = lt_plan_cache_count(ctx->plans);
  printf("\n%d cuBLASLt plans (m, n, k, epilogue; candidates that ran; kept; "
         "us first / kept)\n", count);
  for (int i = 0; i < count; i++) {
    lt_plan_info p = lt_plan_cache_info(ctx->plans, i);
    printf("  %5d %5d %5d  %-14s %3d candidates, kept #%d", p.m, p.n, p.k,
           lt_epilogue_name(p.epilogue), p.candidates, p.chosen);
    if (p.first_us > 0)
      printf(", %.1f / %.1f us", p.first_us, p.chosen_us);
    printf("\n");
  }
}

static int train(const train_options *o, const mnist_dataset *data,
                 const char *dir, double started) {
  trainer_config config;
  config_from_options(&config, o);
  FILE *log = NULL;
  if (o->log_path) {
    log = fopen(o->log_path, "w");
    if (!log) {
      perror(o->log_path);
      fprintf(stderr, "mnist_train: could not open the --log file %s\n",
              o->log_path);
      return EXIT_FAILURE;
    }
    fprintf(log, "epoch,train_loss,train_accuracy,test_loss,test_accuracy,"
                 "train_ms,test_ms,samples_per_s\n");
  }
  gpu_options gpu = {o->device, o->seed, o->tf32, (gpu_autotune)o->autotune};
  gpu_context *ctx = NULL;
  trainer *t = NULL;
  int status = EXIT_FAILURE;
  float *times = calloc((size_t)o->epochs, sizeof *times);
  if (!times || gpu_context_create(&ctx, &gpu) != 0 ||
      trainer_create(&t, ctx, data, &config) != 0) {
    fprintf(stderr, "mnist_train: could not set up training on the GPU "
                    "(see above)\n");
    goto done;
  }
  if (!o->quiet) print_header(ctx, &config, o, data, dir, t);
  epoch_stats s = {0};
  float total_ms = 0.0f;
  for (int e = 0; e < o->epochs; e++) {
    int result = trainer_run_epoch(t, e, &s);
    if (result < 0) {
      fprintf(stderr, "mnist_train: a GPU error stopped training in epoch "
                      "%d (see above)\n", e + 1);
      goto done;
    }
    if (result > 0) {
      fprintf(stderr,
              "mnist_train: the training loss became %g in epoch %d: "
              "training diverged; try a smaller --lr (now %g) or "
              "--momentum (now %g)\n",
              s.train_loss, e + 1, o->lr, o->momentum);
      goto done;
    }
    times[e] = s.train_ms;
    total_ms += s.train_ms;
    double rate = data->train.count / (s.train_ms / 1000.0);
    if (!o->quiet)
      printf("%5d  %10.4f  %8.2f%%  %9.4f  %7.2f%%  %8.2f  %9.3g\n", e + 1,
             s.train_loss, 100.0 * s.train_accuracy, s.test_loss,
             100.0 * s.test_accuracy, s.train_ms, rate);
    if (log)
      fprintf(log, "%d,%.9g,%.9g,%.9g,%.9g,%.4f,%.4f,%.6g\n", e + 1,
              s.train_loss, s.train_accuracy, s.test_loss, s.test_accuracy,
              s.train_ms, s.test_ms, rate);
    fflush(stdout);
  }
  float median_ms, fastest_ms, slowest_ms;
  sample_stats(times, o->epochs, &median_ms, &fastest_ms, &slowest_ms);
  printf("%sdone: test accuracy %.2f%% after %d epochs; training %.1f ms in "
         "all, %.2f ms per epoch (median); %.2f s wall clock\n",
         o->quiet ? "" : "\n", 100.0 * s.test_accuracy, o->epochs, total_ms,
         median_ms, seconds_now() - started);
  if (o->show_plans) print_plans(ctx);
  status = EXIT_SUCCESS;
done:
  trainer_destroy(t);
  gpu_context_destroy(ctx);
  free(times);
  if (log && fclose(log) != 0) {
    fprintf(stderr, "mnist_train: writing %s failed\n", o->log_path);
    status = EXIT_FAILURE;
  }
  return status;
}

int main(int argc, char **argv) {
  double started = seconds_now();
  train_options options;
  char err[512];
  if (train_options_parse(&options, argc, argv, err, sizeof err) != 0) {
    fprintf(stderr, "mnist_train: %s\n\n", err);
    train_options_usage(stderr, "mnist_train");
    return EXIT_USAGE;
  }
  if (options.help) {
    train_options_usage(stdout, "mnist_train");
    return EXIT_SUCCESS;
  }
  if (options.check_flags) return EXIT_SUCCESS;
  char dir[4096];
  if (train_find_data_dir(dir, sizeof dir, options.data_dir,
                          MNIST_SOURCE_DIR) != 0)
    return EXIT_FAILURE;
  mnist_dataset data;
  idx_error load_err;
  if (mnist_dataset_load(&data, dir, &load_err) != IDX_OK) {
    fprintf(stderr, "mnist_train: %s\n", load_err.message);
    return EXIT_FAILURE;
  }
  if (options.check_data) {
    printf("data       %s: %d train, %d test: valid\n", dir, data.train.count,
           data.test.count);
    mnist_dataset_destroy(&data);
    return EXIT_SUCCESS;
  }
  char why[256];
  int status = EXIT_FAILURE;
  if (!gpu_device_available(why, sizeof why))
    fprintf(stderr, "mnist_train: the data in %s is fine, but training needs "
                    "a CUDA GPU: %s\n", dir, why);
  else
    status = train(&options, &data, dir, started);
  mnist_dataset_destroy(&data);
  return status;
}
