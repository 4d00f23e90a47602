/* trainer_query.c: a trainer's single steps (a profile, a kernel count) and
 * what it holds, read (trainer.h); the step both share. */
#include "gpu/gpu_check.h"
#include "gpu/gpu_graph.h"
#include "train/trainer_state.h"

int trainer_train_steps(const trainer *t) {
  return epoch_data_steps(t->data, &t->data->train);
}

int trainer_enqueue_step(trainer *t, int s) {
  const epoch_data *d = t->data;
  const trainer_config *c = &t->config;
  return mlp_train_step(t->net, t->ctx, epoch_data_x(d, &d->train, s),
                        epoch_data_y(d, &d->train, s),
                        epoch_data_batch_size(d, &d->train, s), c->mode,
                        t->d_lr + s, c->momentum, t->d_stats + STAT_TRAIN_LOSS);
}

/* The first batch of the epoch: n is its real size, which is the whole
 * training split when that is smaller than a batch. */
static int enqueue_one_step(trainer *t) {
  return trainer_enqueue_step(t, 0);
}

static int enqueue_one_step_graph(void *t) {
  return enqueue_one_step(t);
}

int trainer_step_once(trainer *t) {
  if (enqueue_one_step(t) != 0) return -1;
  CUDA_CHECK(cudaStreamSynchronize(t->ctx->stream));
  return 0;
}

int trainer_capture_step(trainer *t, cudaGraph_t *graph) {
  return gpu_graph_capture(graph, t->ctx->stream, enqueue_one_step_graph, t);
}

int trainer_steps_per_epoch(const trainer *t) {
  return trainer_train_steps(t);
}

const mlp *trainer_network(const trainer *t) {
  return t->net;
}

int trainer_step_calls(const trainer *t, mlp_call calls[MLP_MAX_STEP_CALLS]) {
  const epoch_data *d = t->data;
  return mlp_step_calls(t->net, epoch_data_x(d, &d->train, 0),
                        epoch_data_batch_size(d, &d->train, 0),
                        t->ctx->options.chain, calls);
}

const step_tune_report *trainer_tune_report(const trainer *t) {
  return t->tune;
}

int trainer_steps_done(const trainer *t) {
  return t->steps_done;
}

int trainer_get_params(const trainer *t, float *h_slab) {
  return mlp_get_params(t->net, t->ctx, h_slab);
}

void trainer_pixel_transform(const trainer *t, float *scale, float *shift) {
  *scale = t->data->pixel_scale;
  *shift = t->data->pixel_shift;
}

double trainer_cycle_ms(const trainer *t) {
  return t->cycle_ms;
}
