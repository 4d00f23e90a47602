/* trainer.c: the training loop on the GPU (see trainer.h). */
#include "train/trainer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpu/gpu_apart.h"
#include "gpu/gpu_check.h"
#include "gpu/gpu_graph.h"
#include "train/epoch_data.h"
#include "train/host_clock.h"
#include "train/step_tune.h"
#include "train/trainer_state.h"
#include "train/tune_apart.h"

/* Past this many steps per epoch (batches under 8 samples) one graph
 * would hold over 100 000 nodes; such epochs launch from the host. */
enum { TRAINER_MAX_GRAPH_STEPS = 8192 };

/* Enqueues one epoch: the shuffle, then its training steps (all of them,
 * or up to config.max_steps in all) (no sync). */
static int enqueue_train(trainer *t) {
  if (epoch_data_gather(t->data, &t->data->train) != 0) return -1;
  for (int s = 0; s < t->epoch_steps; s++)
    if (trainer_enqueue_step(t, s) != 0) return -1;
  return 0;
}

/* Enqueues one pass over the test split (no sync). */
static int enqueue_test(trainer *t) {
  const epoch_data *d = t->data;
  for (int s = 0; s < epoch_data_steps(d, &d->test); s++)
    if (mlp_evaluate(t->net, t->ctx, epoch_data_x(d, &d->test, s),
                     epoch_data_y(d, &d->test, s),
                     epoch_data_batch_size(d, &d->test, s), t->config.mode,
                     t->d_stats + STAT_TEST_LOSS) != 0)
      return -1;
  return 0;
}

/* Builds every plan outside the timed region and outside graph capture:
 * one forward and backward per distinct batch size, without an update, so
 * the parameters stay as initialised. Under --mode auto every call goes
 * fused until the step tuner has chosen its way (no call decides alone). */
static int warm_up(trainer *t) {
  const epoch_data *d = t->data;
  if (t->config.mode == MLP_MODE_AUTO) mlp_set_ways(t->net, LT_AUTO_FUSED);
  int steps[2] = {0, trainer_train_steps(t) - 1};
  if (epoch_data_gather(t->data, &d->train) != 0) return -1;
  for (int i = 0; i < 2; i++) {
    const void *x = epoch_data_x(d, &d->train, steps[i]);
    const int *y = epoch_data_y(d, &d->train, steps[i]);
    int n = epoch_data_batch_size(d, &d->train, steps[i]);
    if (mlp_forward(t->net, t->ctx, x, n, t->config.mode) != 0 ||
        mlp_backward(t->net, t->ctx, x, y, n, t->config.mode, t->d_stats) != 0)
      return -1;
  }
  if (enqueue_test(t) != 0) return -1;
  CUDA_CHECK(cudaStreamSynchronize(t->ctx->stream));
  return 0;
}

/* enqueue_train and enqueue_test as gpu_graph_capture_exec calls them. */
static int enqueue_train_graph(void *t) {
  return enqueue_train(t);
}

static int enqueue_test_graph(void *t) {
  return enqueue_test(t);
}

/* h_lr[s] for each step s of `epoch`. */
static void schedule_fill(trainer *t, int epoch) {
  int steps = trainer_train_steps(t);
  for (int s = 0; s < steps; s++)
    t->h_lr[s] = trainer_config_lr(&t->config, (double)epoch * steps + s,
                                   (double)steps * t->config.epochs);
}

/* The epoch's first `count` training steps on full batches (at least the
 * first step), as the epoch's graph runs them: the step tuner's sample.
 * Returns how many it enqueued, or -1. */
static int enqueue_first_steps(void *arg, int count) {
  trainer *t = arg;
  int full = t->data->train.count / t->config.batch;
  if (count > full) count = full > 0 ? full : 1;
  for (int s = 0; s < count; s++)
    if (trainer_enqueue_step(t, s) != 0) return -1;
  return count;
}

static int trainer_make(trainer **out, gpu_context *ctx,
                        const mnist_dataset *data, const trainer_config *config,
                        int apart_copy, const step_tune_check *apart_check);

/* tune_apart_copy: this trainer's network, data and settings set up again
 * in ctx, on part, where it tunes or checks (it stops there), then
 * destroyed. */
typedef struct copy_job {
  const trainer *t;
  const step_tune_check *check;
} copy_job;

static int copy_and_tune(void *arg, gpu_context *ctx, const mnist_dataset *part,
                         step_tune_report *report) {
  const copy_job *job = arg;
  trainer *copy = NULL;
  int status = trainer_make(&copy, ctx, part, &job->t->config, 1, job->check);
  if (status == 0) *report = *copy->tune;
  trainer_destroy(copy);
  return status;
}

/* step_tune_options.tune_apart: the step tuned, or the sets of `check`
 * weighed, by a copy of this trainer in a CUDA context of its own
 * (train/tune_apart.h). */
static int tune_apart(void *arg, const step_tune_check *check,
                      step_tune_report *report) {
  const trainer *t = arg;
  copy_job job = {t, check};
  return tune_apart_run(t->ctx, t->source, t->config.batch, copy_and_tune, &job,
                        report);
}

/* The step tuner on the first full batch (train/step_tune.h). */
static int tune_step(trainer *t) {
  const epoch_data *d = t->data;
  char key[512];
  trainer_config_key(key, sizeof key, &t->config, t->ctx->options.precision,
                     t->net->loss_scale);
  t->tune = calloc(1, sizeof *t->tune);
  if (!t->tune) {
    fprintf(stderr, "trainer: out of host memory\n");
    return -1;
  }
  step_tune_options o = {.budget_ms = t->config.tune_budget_ms,
                         .cache = t->config.tune_cache,
                         .cache_dir = t->config.tune_cache_dir,
                         .run_key = key,
                         .given = t->apart_copy ? NULL : t->config.tune_given,
                         .check = t->apart_check};
  if (t->apart_copy) {
    o.cache = TUNE_CACHE_OFF; /* the trainer it works for reads and writes */
  } else if (t->config.tune_apart) {
    o.tune_apart = tune_apart;
    o.apart_arg = t;
  }
  step_tune_target target = {.ctx = t->ctx,
                             .net = t->net,
                             .mode = t->config.mode,
                             .d_x = epoch_data_x(d, &d->train, 0),
                             .n = epoch_data_batch_size(d, &d->train, 0),
                             .enqueue_steps = enqueue_first_steps,
                             .arg = t};
  return step_tune_run(t->tune, &target, &o);
}

/* trainer_config.context_cycle: a context made and destroyed now, after
 * the buffers and the warm-up, unless the step tuner's copy ran in a
 * context apart (made after them too, it does the same). On the H200 a
 * run that read its set from the cache trained 0.6-0.9 % slower than the
 * run that tuned it (the default network in fp8: 7 %), and the cycle
 * closed the gap (gpu/gpu_apart.h). A
 * failed cycle is said and the run goes on. Returns 0, or -1 when the
 * stream failed meanwhile. */
static int cycle_context(trainer *t) {
  if (t->tune && t->tune->apart) return 0;
  /* A copy's context that failed is still being destroyed: not beside
   * the cycle (on a thread beside the warm-up the cycle did nothing). */
  gpu_context_settle(t->ctx);
  CUDA_CHECK(cudaStreamSynchronize(t->ctx->stream));
  double started = host_clock_ms();
  char why[300];
  if (gpu_apart_cycle(t->ctx->options.device, why, sizeof why) != 0) {
    fprintf(stderr, "trainer: note: no context made and destroyed (%s)\n", why);
    return 0;
  }
  t->cycle_ms = host_clock_ms() - started;
  return 0;
}

static int trainer_init(trainer *t, const mnist_dataset *data) {
  trainer_config_fit_precision(&t->config, t->ctx->options.precision);
  const trainer_config *c = &t->config;
  lt_dtype type = lt_precision_dtype(t->ctx->options.precision);
  float scale = c->pixel_scale, shift = c->pixel_shift;
  trainer_config_pixel_transform(&scale, &shift, data);
  int fp8 = t->ctx->options.precision == GPU_PRECISION_FP8;
  if (epoch_data_create(&t->data, data, c->batch, type, fp8, scale, shift,
                        t->ctx->stream) != 0)
    return -1;
  int steps = trainer_train_steps(t);
  CUDA_CHECK(cudaMallocHost((void **)&t->h_lr, (size_t)steps * sizeof(float)));
  CUDA_CHECK(cudaMalloc((void **)&t->d_lr, (size_t)steps * sizeof(float)));
  CUDA_CHECK(cudaMalloc((void **)&t->d_stats, STAT_COUNT * sizeof(double)));
  CUDA_CHECK(cudaMemsetAsync(t->d_stats, 0, STAT_COUNT * sizeof(double),
                             t->ctx->stream));
  /* Epoch 0's schedule, so a step launched before any epoch (a profile,
   * a kernel count) reads real learning rates. */
  schedule_fill(t, 0);
  CUDA_CHECK(cudaMemcpyAsync(t->d_lr, t->h_lr, (size_t)steps * sizeof(float),
                             cudaMemcpyHostToDevice, t->ctx->stream));
  CUDA_CHECK(cudaEventCreate(&t->start));
  CUDA_CHECK(cudaEventCreate(&t->stop));
  CUDA_CHECK(cudaEventCreate(&t->test_stop));
  mlp_options options;
  trainer_config_network(&options, c, &t->ctx->options);
  if (mlp_create(&t->net, c->widths, c->depth, c->batch, &options) != 0)
    return -1;
  if ((c->initial_params
           ? mlp_set_params_from(t->net, t->ctx, c->initial_layout,
                                 c->initial_params)
           : mlp_init_params(t->net, t->ctx, c->seed)) != 0 ||
      warm_up(t) != 0 || tune_step(t) != 0)
    return -1;
  t->config.initial_layout = NULL; /* borrowed until now */
  t->config.initial_params = NULL;
  t->config.tune_given = NULL;
  t->source = NULL;
  if (t->apart_copy) return 0; /* a copy that only tunes: no graphs */
  if (c->context_cycle && cycle_context(t) != 0) return -1;
  if (c->max_steps > 0) t->config.graphs = 0; /* epochs may end early */
  t->epoch_steps = steps;                     /* what a capture records */
  if (c->graphs && steps > TRAINER_MAX_GRAPH_STEPS) {
    fprintf(stderr,
            "trainer: note: %d steps per epoch; launching them from "
            "the host instead of capturing a graph of that size\n",
            steps);
    t->config.graphs = 0;
  }
  if (t->config.graphs &&
      (gpu_graph_capture_exec(&t->train_graph, t->ctx->stream,
                              gpu_graph_flags(t->ctx), enqueue_train_graph,
                              t) != 0 ||
       gpu_graph_capture_exec(&t->test_graph, t->ctx->stream,
                              gpu_graph_flags(t->ctx), enqueue_test_graph,
                              t) != 0))
    return -1;
  gpu_context_settle(t->ctx); /* no context apart dies in a timed epoch */
  return 0;
}

int trainer_create(trainer **out, gpu_context *ctx, const mnist_dataset *data,
                   const trainer_config *config) {
  return trainer_make(out, ctx, data, config, 0, NULL);
}

static int trainer_make(trainer **out, gpu_context *ctx,
                        const mnist_dataset *data, const trainer_config *config,
                        int apart_copy, const step_tune_check *apart_check) {
  *out = NULL;
  char err[256];
  if (trainer_config_check(config, err, sizeof err) != 0) {
    fprintf(stderr, "trainer: %s\n", err);
    return -1;
  }
  trainer *t = calloc(1, sizeof *t);
  if (!t) {
    fprintf(stderr, "trainer: out of host memory\n");
    return -1;
  }
  t->ctx = ctx;
  t->config = *config;
  t->source = data;
  t->apart_copy = apart_copy;
  t->apart_check = apart_check;
  if (trainer_init(t, data) != 0) {
    trainer_destroy(t);
    return -1;
  }
  *out = t;
  return 0;
}

void trainer_destroy(trainer *t) {
  if (!t) return;
  gpu_context_settle(t->ctx); /* one a failed trainer_init left going */
  cudaStreamSynchronize(t->ctx->stream);
  if (t->test_graph) cudaGraphExecDestroy(t->test_graph);
  if (t->train_graph) cudaGraphExecDestroy(t->train_graph);
  free(t->tune);
  mlp_destroy(t->net);
  if (t->test_stop) cudaEventDestroy(t->test_stop);
  if (t->stop) cudaEventDestroy(t->stop);
  if (t->start) cudaEventDestroy(t->start);
  cudaFree(t->d_stats);
  cudaFree(t->d_lr);
  cudaFreeHost(t->h_lr);
  epoch_data_destroy(t->data);
  free(t);
}

int trainer_run_epoch(trainer *t, int epoch, epoch_stats *stats) {
  cudaStream_t stream = t->ctx->stream;
  const trainer_config *c = &t->config;
  t->epoch_steps = trainer_train_steps(t);
  if (c->max_steps > 0 && t->steps_done + t->epoch_steps > c->max_steps)
    t->epoch_steps = c->max_steps - t->steps_done;
  /* The previous epoch ended with a sync, so the pinned buffers are free. */
  if (epoch_data_shuffle(t->data, c->seed, c->file_order ? -1 : epoch) != 0)
    return -1;
  schedule_fill(t, epoch);
  CUDA_CHECK(cudaMemcpyAsync(t->d_lr, t->h_lr,
                             (size_t)trainer_train_steps(t) * sizeof(float),
                             cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(
      cudaMemsetAsync(t->d_stats, 0, STAT_COUNT * sizeof(double), stream));
  CUDA_CHECK(cudaEventRecord(t->start, stream));
  if (t->train_graph)
    CUDA_CHECK(cudaGraphLaunch(t->train_graph, stream));
  else if (enqueue_train(t) != 0)
    return -1;
  CUDA_CHECK(cudaEventRecord(t->stop, stream));
  if (t->test_graph)
    CUDA_CHECK(cudaGraphLaunch(t->test_graph, stream));
  else if (enqueue_test(t) != 0)
    return -1;
  CUDA_CHECK(cudaEventRecord(t->test_stop, stream));
  double h_stats[STAT_COUNT];
  CUDA_CHECK(cudaMemcpyAsync(h_stats, t->d_stats, sizeof h_stats,
                             cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  epoch_stats s;
  CUDA_CHECK(cudaEventElapsedTime(&s.train_ms, t->start, t->stop));
  CUDA_CHECK(cudaEventElapsedTime(&s.test_ms, t->stop, t->test_stop));
  /* The samples this epoch trained on (all, unless max_steps ended it). */
  double trained = (double)t->epoch_steps * c->batch;
  if (trained > t->data->train.count ||
      t->epoch_steps == trainer_train_steps(t))
    trained = t->data->train.count;
  t->steps_done += t->epoch_steps;
  s.train_loss = t->epoch_steps ? h_stats[STAT_TRAIN_LOSS] / trained : 0.0;
  s.train_accuracy =
      t->epoch_steps ? h_stats[STAT_TRAIN_CORRECT] / trained : 0.0;
  s.test_loss = h_stats[STAT_TEST_LOSS] / t->data->test.count;
  s.test_accuracy = h_stats[STAT_TEST_CORRECT] / t->data->test.count;
  *stats = s;
  return isfinite(s.train_loss) ? 0 : 1;
}
