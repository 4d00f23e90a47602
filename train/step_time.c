/* step_time.c: the step tuner's clock (step_time.h). */
#include "train/step_time.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/gpu_check.h"
#include "gpu/gpu_graph.h"
#include "layers/mlp_snapshot.h"
#include "train/step_slots.h"

enum { CLOCK_EVENTS = 2 * TUNE_PAIRS + 1 };

struct step_clock {
  const step_tune_target *t; /* borrowed */
  const mlp_call *calls;
  const tune_slot *slots;
  int slot_count;
  tune_config config[2]; /* what exec[i] was captured with */
  cudaGraphExec_t exec[2];
  cudaEvent_t ev[CLOCK_EVENTS];
  int replays; /* per sample; 0 until the first measure */
  int steps;   /* steps a replay runs (enqueue_steps' count) */
};

int step_clock_create(step_clock **out, const step_tune_target *target,
                      const mlp_call *calls, const tune_slot *slots,
                      int slot_count) {
  /* Nothing timed while a context apart is being destroyed beside it. */
  gpu_context_settle(target->ctx);
  step_clock *k = calloc(1, sizeof *k);
  *out = NULL;
  if (!k) {
    fprintf(stderr, "step_tune: out of host memory\n");
    return -1;
  }
  k->t = target;
  k->calls = calls;
  k->slots = slots;
  k->slot_count = slot_count;
  for (int i = 0; i < CLOCK_EVENTS; i++)
    if (cudaEventCreate(&k->ev[i]) != cudaSuccess) {
      fprintf(stderr, "step_tune: could not create timing events\n");
      step_clock_destroy(k);
      return -1;
    }
  *out = k;
  return 0;
}

void step_clock_destroy(step_clock *k) {
  if (!k) return;
  for (int i = 0; i < 2; i++)
    if (k->exec[i]) cudaGraphExecDestroy(k->exec[i]);
  for (int i = 0; i < CLOCK_EVENTS; i++)
    if (k->ev[i]) cudaEventDestroy(k->ev[i]);
  free(k);
}

int step_time_kept(const step_tune_target *target, int (*work)(void *arg),
                   void *arg) {
  mlp_snapshot *snapshot = NULL;
  cudaStream_t stream = target->ctx->stream;
  if (mlp_snapshot_create(&snapshot, target->net) != 0) return -1;
  int status = mlp_snapshot_take(snapshot, target->net, stream);
  int taken = status == 0;
  if (status == 0) status = work(arg);
  if ((taken && mlp_snapshot_restore(snapshot, target->net, stream) != 0) ||
      cudaStreamSynchronize(stream) != cudaSuccess)
    status = -1;
  mlp_snapshot_destroy(snapshot);
  return status;
}

/* STEP_TIME_STEPS steps, as the graph holds them. */
static int enqueue_steps(void *self) {
  step_clock *k = self;
  int steps = k->t->enqueue_steps(k->t->arg, STEP_TIME_STEPS);
  if (steps < 1) return -1;
  k->steps = steps;
  return 0;
}

/* Captures configuration c into exec[i]: written into the layers, one
 * step run as it is (any plan it needs is built there, outside capture),
 * then captured, instantiated and launched once (the upload). Returns 0, 1
 * when c cannot run (the step was refused), or -1. */
static int prepare(step_clock *k, int i, const tune_config *c) {
  const step_tune_target *t = k->t;
  cudaStream_t stream = t->ctx->stream;
  if (k->exec[i]) cudaGraphExecDestroy(k->exec[i]);
  k->exec[i] = NULL;
  step_slots_apply(t->net, k->calls, k->slots, k->slot_count, c, t->n);
  if (t->enqueue_steps(t->arg, 1) < 1) {
    CUDA_CHECK(cudaStreamSynchronize(stream));
    return 1;
  }
  if (gpu_graph_capture_exec(&k->exec[i], stream, gpu_graph_flags(t->ctx),
                             enqueue_steps, k) != 0)
    return -1;
  k->config[i] = *c;
  CUDA_CHECK(cudaGraphLaunch(k->exec[i], stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return 0;
}

/* The entry holding configuration c, prepared if needed, never `avoid`
 * (the other side of the pair). Returns it, -2 when c cannot run, or -1. */
static int entry_for(step_clock *k, const tune_config *c, int avoid) {
  for (int i = 0; i < 2; i++)
    if (k->exec[i] && memcmp(&k->config[i], c, sizeof *c) == 0) return i;
  int i = avoid == 0 ? 1 : 0;
  int status = prepare(k, i, c);
  return status == 0 ? i : status > 0 ? -2 : -1;
}

/* Replays per sample: STEP_TIME_SAMPLE_MS over a replay's time (three
 * replays of entry i timed together). */
static int choose_replays(step_clock *k, int i) {
  cudaStream_t stream = k->t->ctx->stream;
  float ms = 0.0f;
  CUDA_CHECK(cudaEventRecord(k->ev[0], stream));
  for (int r = 0; r < 3; r++)
    CUDA_CHECK(cudaGraphLaunch(k->exec[i], stream));
  CUDA_CHECK(cudaEventRecord(k->ev[1], stream));
  CUDA_CHECK(cudaEventSynchronize(k->ev[1]));
  CUDA_CHECK(cudaEventElapsedTime(&ms, k->ev[0], k->ev[1]));
  double replay_ms = ms / 3.0; /* a replay: k->steps steps */
  int replays = replay_ms > 0.0 ? (int)(STEP_TIME_SAMPLE_MS / replay_ms + 0.999)
                                : STEP_TIME_MAX_REPLAYS;
  k->replays = replays < 1                       ? 1
               : replays > STEP_TIME_MAX_REPLAYS ? STEP_TIME_MAX_REPLAYS
                                                 : replays;
  return 0;
}

int step_clock_measure(void *self, const tune_config *a, const tune_config *b,
                       int pairs, float *base, float *cand, double *spent_ms) {
  step_clock *k = self;
  cudaStream_t stream = k->t->ctx->stream;
  int ia = entry_for(k, a, -1);
  if (ia < 0) return -1; /* the incumbent always runs */
  int ib = entry_for(k, b, ia);
  if (ib == -2) return 1;
  if (ib < 0) return -1;
  if (!k->replays && choose_replays(k, ia) != 0) return -1;
  if (pairs > TUNE_PAIRS) pairs = TUNE_PAIRS;
  /* Sample s runs between events s and s + 1; pairs alternate A B, B A. */
  CUDA_CHECK(cudaEventRecord(k->ev[0], stream));
  for (int s = 0; s < 2 * pairs; s++) {
    int first_a = (s / 2) % 2 == 0;
    int which = (s % 2 == 0) == first_a ? ia : ib;
    for (int r = 0; r < k->replays; r++)
      CUDA_CHECK(cudaGraphLaunch(k->exec[which], stream));
    CUDA_CHECK(cudaEventRecord(k->ev[s + 1], stream));
  }
  CUDA_CHECK(cudaEventSynchronize(k->ev[2 * pairs]));
  *spent_ms = 0.0;
  for (int s = 0; s < 2 * pairs; s++) {
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, k->ev[s], k->ev[s + 1]));
    *spent_ms += ms;
    int first_a = (s / 2) % 2 == 0;
    int is_a = (s % 2 == 0) == first_a;
    float per_step = ms / (float)(k->replays * k->steps);
    if (is_a)
      base[s / 2] = per_step;
    else
      cand[s / 2] = per_step;
  }
  return 0;
}
