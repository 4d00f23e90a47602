/* trainer.c: the training loop on the GPU (see trainer.h). */
#include "trainer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../gpu/gpu_check.h"
#include "../gpu/kernels.h"

enum { STAT_TRAIN_LOSS, STAT_TRAIN_CORRECT, STAT_TEST_LOSS, STAT_TEST_CORRECT,
       STAT_COUNT };

/* Past this many steps per epoch (batches under 8 samples) one graph
 * would hold over 100 000 nodes; such epochs launch from the host. */
enum { TRAINER_MAX_GRAPH_STEPS = 8192 };

/* One split on the GPU: the bytes as loaded, and the normalised samples
 * in batch order: x (784, count) col-major, each batch starting on a
 * 256-byte boundary (batch_stride floats apart) so every batch shares the
 * same cuBLASLt plans. */
typedef struct gpu_split {
  int count;
  uint8_t *d_images;  /* (count, 784) */
  uint8_t *d_labels;  /* [count] */
  int *d_order;       /* [count]: sample taken at each position */
  float *d_x;         /* batches of (784, batch), batch_stride apart */
  int *d_y;           /* [count] labels in the same order */
} gpu_split;

struct trainer {
  gpu_context *ctx;       /* borrowed */
  trainer_config config;
  mlp *net;
  gpu_split train, test;
  size_t batch_stride;    /* floats between batch starts in d_x */
  int *h_order;           /* pinned, train.count */
  float *h_lr, *d_lr;     /* pinned / device: one lr per step of an epoch */
  double *d_stats;        /* [STAT_COUNT] */
  float pixel_scale, pixel_shift;
  cudaEvent_t start, stop, test_stop;
  cudaGraphExec_t train_graph, test_graph;
};

void trainer_config_init(trainer_config *c, const int *hidden, int hidden_count,
                         int batch) {
  memset(c, 0, sizeof *c);
  c->widths[0] = MNIST_PIXELS;
  for (int i = 0; i < hidden_count; i++) c->widths[i + 1] = hidden[i];
  c->depth = hidden_count + 1;
  c->widths[c->depth] = MNIST_CLASSES;
  c->batch = batch;
  c->epochs = 1;
  c->lr = 0.05f;
  c->momentum = 0.9f;
  c->cosine = 1;
  c->seed = 1;
  c->mode = MLP_MODE_FUSED;
  c->graphs = 1;
}

void trainer_config_name(char *out, size_t size, const trainer_config *c) {
  size_t at = 0;
  out[0] = '\0';
  for (int l = 0; l <= c->depth && at < size; l++)
    at += (size_t)snprintf(out + at, size - at, l ? "-%d" : "%d", c->widths[l]);
}

static int steps_for(const trainer *t, int count) {
  return (count + t->config.batch - 1) / t->config.batch;
}

static int batch_size(const trainer *t, int count, int step) {
  int left = count - step * t->config.batch;
  return left < t->config.batch ? left : t->config.batch;
}

static int split_upload(trainer *t, gpu_split *out, const mnist_split *split) {
  cudaStream_t stream = t->ctx->stream;
  size_t pixels = (size_t)split->count * MNIST_PIXELS;
  size_t x_floats = (size_t)steps_for(t, split->count) * t->batch_stride;
  out->count = split->count;
  CUDA_CHECK(cudaMalloc((void **)&out->d_images, pixels));
  CUDA_CHECK(cudaMalloc((void **)&out->d_labels, (size_t)split->count));
  CUDA_CHECK(cudaMalloc((void **)&out->d_order, (size_t)split->count * sizeof(int)));
  CUDA_CHECK(cudaMalloc((void **)&out->d_x, x_floats * sizeof(float)));
  CUDA_CHECK(cudaMalloc((void **)&out->d_y, (size_t)split->count * sizeof(int)));
  CUDA_CHECK(cudaMemsetAsync(out->d_x, 0, x_floats * sizeof(float), stream));
  CUDA_CHECK(cudaMemcpyAsync(out->d_images, split->images, pixels,
                             cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(cudaMemcpyAsync(out->d_labels, split->labels, (size_t)split->count,
                             cudaMemcpyHostToDevice, stream));
  return 0;
}

static void split_release(gpu_split *split) {
  cudaFree(split->d_y);
  cudaFree(split->d_x);
  cudaFree(split->d_order);
  cudaFree(split->d_labels);
  cudaFree(split->d_images);
}

/* splitmix64: a small, well-mixed generator for the batch order. */
static unsigned long long next_random(unsigned long long *state) {
  unsigned long long z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* h_order = a permutation of 0..count-1 that depends only on seed and
 * epoch (Fisher-Yates); epoch < 0 gives the identity. */
static void order_fill(int *h_order, int count, unsigned long long seed,
                       int epoch) {
  for (int i = 0; i < count; i++) h_order[i] = i;
  if (epoch < 0) return;
  unsigned long long state = seed ^ (0x5851f42d4c957f2dull * (unsigned)(epoch + 1));
  for (int i = count - 1; i > 0; i--) {
    int j = (int)(next_random(&state) % (unsigned long long)(i + 1));
    int swap = h_order[i];
    h_order[i] = h_order[j];
    h_order[j] = swap;
  }
}

/* Writes split->d_x and d_y in the order d_order: one kernel. */
static int enqueue_gather(trainer *t, gpu_split *split) {
  return gpu_gather_batches(split->d_x, split->d_y, split->d_images,
                            split->d_labels, split->d_order, split->count,
                            t->config.batch, t->batch_stride, MNIST_PIXELS,
                            t->pixel_scale, t->pixel_shift, t->ctx->stream);
}

/* Enqueues one epoch: the shuffle, then every training step (no sync). */
static int enqueue_train(trainer *t) {
  const trainer_config *c = &t->config;
  if (enqueue_gather(t, &t->train) != 0) return -1;
  for (int s = 0; s < steps_for(t, t->train.count); s++)
    if (mlp_train_step(t->net, t->ctx, t->train.d_x + (size_t)s * t->batch_stride,
                       t->train.d_y + (size_t)s * c->batch,
                       batch_size(t, t->train.count, s), c->mode, t->d_lr + s,
                       c->momentum, t->d_stats + STAT_TRAIN_LOSS) != 0)
      return -1;
  return 0;
}

/* Enqueues one pass over the test split (no sync). */
static int enqueue_test(trainer *t) {
  for (int s = 0; s < steps_for(t, t->test.count); s++)
    if (mlp_evaluate(t->net, t->ctx, t->test.d_x + (size_t)s * t->batch_stride,
                     t->test.d_y + (size_t)s * t->config.batch,
                     batch_size(t, t->test.count, s), t->config.mode,
                     t->d_stats + STAT_TEST_LOSS) != 0)
      return -1;
  return 0;
}

/* Builds every plan (and autotunes it) outside the timed region and
 * outside graph capture: one forward and backward per distinct batch size,
 * without an update, so the parameters stay as initialised. */
static int warm_up(trainer *t) {
  int last = steps_for(t, t->train.count) - 1;
  int steps[2] = {0, last};
  if (enqueue_gather(t, &t->train) != 0) return -1;
  for (int i = 0; i < 2; i++) {
    const float *x = t->train.d_x + (size_t)steps[i] * t->batch_stride;
    const int *y = t->train.d_y + (size_t)steps[i] * t->config.batch;
    int n = batch_size(t, t->train.count, steps[i]);
    if (mlp_forward(t->net, t->ctx, x, n, t->config.mode) != 0 ||
        mlp_backward(t->net, t->ctx, x, y, n, t->config.mode, t->d_stats) != 0)
      return -1;
  }
  if (enqueue_test(t) != 0) return -1;
  CUDA_CHECK(cudaStreamSynchronize(t->ctx->stream));
  return 0;
}

typedef int (*enqueue_fn)(trainer *t);

/* Captures what `enqueue` launches into a graph (ended even on failure). */
static int capture(trainer *t, enqueue_fn enqueue, cudaGraph_t *graph) {
  CUDA_CHECK(cudaStreamBeginCapture(t->ctx->stream,
                                    cudaStreamCaptureModeThreadLocal));
  int status = enqueue(t);
  cudaError_t end = cudaStreamEndCapture(t->ctx->stream, graph);
  if (status != 0) {
    if (end == cudaSuccess) cudaGraphDestroy(*graph);
    return -1;
  }
  CUDA_CHECK(end);
  return 0;
}

static int capture_exec(trainer *t, enqueue_fn enqueue, cudaGraphExec_t *exec) {
  cudaGraph_t graph = NULL;
  if (capture(t, enqueue, &graph) != 0) return -1;
  cudaError_t status = cudaGraphInstantiate(exec, graph, 0);
  cudaGraphDestroy(graph);
  CUDA_CHECK(status);
  return 0;
}

static int trainer_init(trainer *t, const mnist_dataset *data) {
  gpu_context *ctx = t->ctx;
  const trainer_config *c = &t->config;
  t->batch_stride = mlp_align_floats((size_t)MNIST_PIXELS * c->batch);
  t->pixel_scale = 1.0f / (255.0f * data->pixel_std);
  t->pixel_shift = -data->pixel_mean / data->pixel_std;
  if (split_upload(t, &t->train, &data->train) != 0 ||
      split_upload(t, &t->test, &data->test) != 0)
    return -1;
  int steps = steps_for(t, t->train.count);
  CUDA_CHECK(cudaMallocHost((void **)&t->h_order, (size_t)t->train.count * sizeof(int)));
  CUDA_CHECK(cudaMallocHost((void **)&t->h_lr, (size_t)steps * sizeof(float)));
  CUDA_CHECK(cudaMalloc((void **)&t->d_lr, (size_t)steps * sizeof(float)));
  CUDA_CHECK(cudaMalloc((void **)&t->d_stats, STAT_COUNT * sizeof(double)));
  CUDA_CHECK(cudaEventCreate(&t->start));
  CUDA_CHECK(cudaEventCreate(&t->stop));
  CUDA_CHECK(cudaEventCreate(&t->test_stop));
  /* Both orders start as the identity; the test split is gathered once. */
  order_fill(t->h_order, t->train.count, c->seed, -1);
  CUDA_CHECK(cudaMemcpyAsync(t->test.d_order, t->h_order,
                             (size_t)t->test.count * sizeof(int),
                             cudaMemcpyHostToDevice, ctx->stream));
  CUDA_CHECK(cudaMemcpyAsync(t->train.d_order, t->h_order,
                             (size_t)t->train.count * sizeof(int),
                             cudaMemcpyHostToDevice, ctx->stream));
  if (enqueue_gather(t, &t->test) != 0) return -1;
  if (mlp_create(&t->net, c->widths, c->depth, c->batch) != 0) return -1;
  CURAND_CHECK(curandSetPseudoRandomGeneratorSeed(ctx->rng, c->seed));
  CURAND_CHECK(curandSetGeneratorOffset(ctx->rng, 0));
  if (mlp_init_params(t->net, ctx) != 0 || warm_up(t) != 0) return -1;
  if (c->graphs && steps > TRAINER_MAX_GRAPH_STEPS) {
    fprintf(stderr, "trainer: note: %d steps per epoch; launching them from "
                    "the host instead of capturing a graph of that size\n",
            steps);
    t->config.graphs = 0;
  }
  if (t->config.graphs &&
      (capture_exec(t, enqueue_train, &t->train_graph) != 0 ||
       capture_exec(t, enqueue_test, &t->test_graph) != 0))
    return -1;
  return 0;
}

int trainer_create(trainer **out, gpu_context *ctx, const mnist_dataset *data,
                   const trainer_config *config) {
  *out = NULL;
  if (config->batch < 1 || config->depth < 1 || config->epochs < 1 ||
      config->widths[0] != MNIST_PIXELS ||
      config->widths[config->depth] != MNIST_CLASSES) {
    fprintf(stderr, "trainer: expected batch >= 1, epochs >= 1 and widths "
                    "784-...-10\n");
    return -1;
  }
  trainer *t = calloc(1, sizeof *t);
  if (!t) {
    fprintf(stderr, "trainer: out of host memory\n");
    return -1;
  }
  t->ctx = ctx;
  t->config = *config;
  if (trainer_init(t, data) != 0) {
    trainer_destroy(t);
    return -1;
  }
  *out = t;
  return 0;
}

void trainer_destroy(trainer *t) {
  if (!t) return;
  cudaStreamSynchronize(t->ctx->stream);
  if (t->test_graph) cudaGraphExecDestroy(t->test_graph);
  if (t->train_graph) cudaGraphExecDestroy(t->train_graph);
  mlp_destroy(t->net);
  if (t->test_stop) cudaEventDestroy(t->test_stop);
  if (t->stop) cudaEventDestroy(t->stop);
  if (t->start) cudaEventDestroy(t->start);
  cudaFree(t->d_stats);
  cudaFree(t->d_lr);
  cudaFreeHost(t->h_lr);
  cudaFreeHost(t->h_order);
  split_release(&t->test);
  split_release(&t->train);
  free(t);
}

/* h_lr[s] for each step s of `epoch`. */
static void schedule_fill(trainer *t, int epoch) {
  const trainer_config *c = &t->config;
  int steps = steps_for(t, t->train.count);
  double total = (double)steps * c->epochs;
  for (int s = 0; s < steps; s++) {
    double done = (double)epoch * steps + s;
    t->h_lr[s] = c->cosine
                     ? (float)(c->lr * 0.5 * (1.0 + cos(3.14159265358979 * done / total)))
                     : c->lr;
  }
}

int trainer_run_epoch(trainer *t, int epoch, epoch_stats *stats) {
  cudaStream_t stream = t->ctx->stream;
  /* The previous epoch ended with a sync, so the pinned buffers are free. */
  order_fill(t->h_order, t->train.count, t->config.seed, epoch);
  schedule_fill(t, epoch);
  CUDA_CHECK(cudaMemcpyAsync(t->train.d_order, t->h_order,
                             (size_t)t->train.count * sizeof(int),
                             cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(cudaMemcpyAsync(t->d_lr, t->h_lr,
                             (size_t)steps_for(t, t->train.count) * sizeof(float),
                             cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(cudaMemsetAsync(t->d_stats, 0, STAT_COUNT * sizeof(double), stream));
  CUDA_CHECK(cudaEventRecord(t->start, stream));
  if (t->train_graph) CUDA_CHECK(cudaGraphLaunch(t->train_graph, stream));
  else if (enqueue_train(t) != 0) return -1;
  CUDA_CHECK(cudaEventRecord(t->stop, stream));
  if (t->test_graph) CUDA_CHECK(cudaGraphLaunch(t->test_graph, stream));
  else if (enqueue_test(t) != 0) return -1;
  CUDA_CHECK(cudaEventRecord(t->test_stop, stream));
  double h_stats[STAT_COUNT];
  CUDA_CHECK(cudaMemcpyAsync(h_stats, t->d_stats, sizeof h_stats,
                             cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaEventElapsedTime(&stats->train_ms, t->start, t->stop));
  CUDA_CHECK(cudaEventElapsedTime(&stats->test_ms, t->stop, t->test_stop));
  stats->train_loss = h_stats[STAT_TRAIN_LOSS] / t->train.count;
  stats->train_accuracy = h_stats[STAT_TRAIN_CORRECT] / t->train.count;
  stats->test_loss = h_stats[STAT_TEST_LOSS] / t->test.count;
  stats->test_accuracy = h_stats[STAT_TEST_CORRECT] / t->test.count;
  return isfinite(stats->train_loss) ? 0 : 1;
}

static int enqueue_one_step(trainer *t) {
  return mlp_train_step(t->net, t->ctx, t->train.d_x, t->train.d_y,
                        t->config.batch, t->config.mode, t->d_lr,
                        t->config.momentum, t->d_stats + STAT_TRAIN_LOSS);
}

int trainer_step_once(trainer *t) {
  if (enqueue_one_step(t) != 0) return -1;
  CUDA_CHECK(cudaStreamSynchronize(t->ctx->stream));
  return 0;
}

static int is_kernel(cudaGraphNode_t node) {
  enum cudaGraphNodeType type;
  return cudaGraphNodeGetType(node, &type) == cudaSuccess &&
         type == cudaGraphNodeTypeKernel;
}

/* Kernel count and longest chain of kernels (longest path over the
 * graph's edges, counting kernel nodes only). */
static int count_kernels(cudaGraph_t graph, int *count, int *critical_path) {
  size_t nodes = 0, edges = 0;
  CUDA_CHECK(cudaGraphGetNodes(graph, NULL, &nodes));
  CUDA_CHECK(cudaGraphGetEdges(graph, NULL, NULL, NULL, &edges));
  cudaGraphNode_t *list = calloc(nodes + 1, sizeof *list);
  cudaGraphNode_t *from = calloc(edges + 1, sizeof *from);
  cudaGraphNode_t *to = calloc(edges + 1, sizeof *to);
  int *depth = calloc(nodes + 1, sizeof *depth);
  int status = list && from && to && depth ? 0 : -1;
  if (status == 0 && (cudaGraphGetNodes(graph, list, &nodes) != cudaSuccess ||
                      cudaGraphGetEdges(graph, from, to, NULL, &edges) != cudaSuccess))
    status = -1;
  *count = 0;
  *critical_path = 0;
  for (size_t i = 0; status == 0 && i < nodes; i++) {
    depth[i] = is_kernel(list[i]);
    *count += depth[i];
  }
  /* depth[i]: kernels on the longest chain ending at node i. Relaxing all
   * edges `nodes` times settles every path of a DAG. */
  for (size_t pass = 0; status == 0 && pass < nodes; pass++)
    for (size_t e = 0; e < edges; e++) {
      size_t a = 0, b = 0;
      while (a < nodes && list[a] != from[e]) a++;
      while (b < nodes && list[b] != to[e]) b++;
      if (a < nodes && b < nodes && depth[a] + is_kernel(list[b]) > depth[b])
        depth[b] = depth[a] + is_kernel(list[b]);
    }
  for (size_t i = 0; status == 0 && i < nodes; i++)
    if (depth[i] > *critical_path) *critical_path = depth[i];
  free(list);
  free(from);
  free(to);
  free(depth);
  if (status != 0) fprintf(stderr, "trainer: could not read the step graph\n");
  return status;
}

int trainer_kernels_per_step(trainer *t, int *count, int *critical_path) {
  cudaGraph_t graph = NULL;
  if (capture(t, enqueue_one_step, &graph) != 0) return -1;
  int status = count_kernels(graph, count, critical_path);
  cudaGraphDestroy(graph);
  return status;
}

int trainer_steps_per_epoch(const trainer *t) {
  return steps_for(t, t->train.count);
}

const mlp *trainer_network(const trainer *t) { return t->net; }
