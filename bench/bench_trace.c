/* bench_trace.c: one training step per small network, traced node by node
 * with event record nodes in a copy of its graph (bench_trace.h). */
#include "bench/bench_trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench/bench_kernel_names.h"
#include "bench/bench_rows.h"
#include "bench/bench_trace_table.h"
#include "bench/graph_count.h"
#include "gpu/gpu_check.h"
#include "gpu/sample_stats.h"
#include "train/trainer.h"

/* One step's graph as captured and its instrumented copy. Samples: row 0
 * the untraced step, row 1 the traced step, rows 2 + 2k and 3 + 2k kernel
 * k's ready and end, BENCH_TRACE_REPLAYS each, in microseconds. */
typedef struct step_trace {
  cudaGraph_t copy;
  graph_table table; /* of the copy, before the event nodes were added */
  int kernels;
  int *row_node;            /* [kernels]: table index of each row */
  cudaEvent_t *ready, *end; /* [kernels] */
  cudaEvent_t start, stop;
  cudaGraphExec_t plain, traced;
  trace_kernel *rows; /* [kernels], topological order */
  float *samples;     /* [2 + 2 kernels][BENCH_TRACE_REPLAYS] */
} step_trace;

static void trace_destroy(step_trace *s) {
  if (s->traced) cudaGraphExecDestroy(s->traced);
  if (s->plain) cudaGraphExecDestroy(s->plain);
  for (int k = 0; k < s->kernels; k++) {
    if (s->ready && s->ready[k]) cudaEventDestroy(s->ready[k]);
    if (s->end && s->end[k]) cudaEventDestroy(s->end[k]);
  }
  if (s->stop) cudaEventDestroy(s->stop);
  if (s->start) cudaEventDestroy(s->start);
  if (s->copy) cudaGraphDestroy(s->copy);
  graph_table_free(&s->table);
  free(s->row_node);
  free(s->ready);
  free(s->end);
  free(s->rows);
  free(s->samples);
  memset(s, 0, sizeof *s);
}

/* s->rows: the kernel nodes in topological order, named, with the kernels
 * each waits for as row indices. */
static int trace_rows(step_trace *s, const bench_namer *names) {
  const graph_table *g = &s->table;
  int *order = calloc((size_t)g->count + 1, sizeof *order);
  int *row_of = calloc((size_t)g->count + 1, sizeof *row_of);
  int status = order && row_of ? graph_table_order(g, order) : -1;
  for (int n = 0; status == 0 && n < g->count; n++)
    if (g->kernel[order[n]]) {
      row_of[order[n]] = s->kernels;
      s->row_node[s->kernels++] = order[n];
    }
  for (int k = 0; status == 0 && k < s->kernels; k++) {
    trace_kernel *row = &s->rows[k];
    int v = s->row_node[k];
    bench_kernel_name(row->name, names, g->node[v]);
    row->pred_count = graph_kernel_preds(
        g, v, row->pred, row->pred_programmatic, TRACE_MAX_PREDS);
    if (row->pred_count < 0) status = -1;
    for (int i = 0; i < row->pred_count; i++)
      row->pred[i] = row_of[row->pred[i]];
  }
  free(order);
  free(row_of);
  if (status != 0)
    fprintf(stderr,
            "mnist_bench: --trace-step: could not order the step's "
            "graph (a cycle, or a kernel waiting for more than %d)\n",
            TRACE_MAX_PREDS);
  return status;
}

/* Per kernel row k: an event record node after the node's own
 * dependencies (none for a root: it records at the launch) and one after
 * the node itself, both with default edges. */
static int trace_add_events(step_trace *s) {
  const graph_table *g = &s->table;
  cudaGraphNode_t *deps = calloc((size_t)g->edge_count + 1, sizeof *deps);
  if (!deps) return -1;
  int status = 0;
  for (int k = 0; status == 0 && k < s->kernels; k++) {
    int v = s->row_node[k], count = 0;
    cudaGraphNode_t added;
    for (int e = 0; e < g->edge_count; e++)
      if (g->edge[e].to == v) deps[count++] = g->node[g->edge[e].from];
    if (cudaEventCreate(&s->ready[k]) != cudaSuccess ||
        cudaEventCreate(&s->end[k]) != cudaSuccess ||
        cudaGraphAddEventRecordNode(&added, s->copy, deps, (size_t)count,
                                    s->ready[k]) != cudaSuccess ||
        cudaGraphAddEventRecordNode(&added, s->copy, &g->node[v], 1,
                                    s->end[k]) != cudaSuccess)
      status = -1;
  }
  free(deps);
  if (status != 0)
    fprintf(stderr,
            "mnist_bench: --trace-step: could not add the event "
            "nodes: %s\n",
            cudaGetErrorString(cudaGetLastError()));
  return status;
}

/* Fills s from the captured step (left unchanged; the caller destroys
 * it): the copy, its rows, its event nodes, both graphs instantiated with
 * `flags` (gpu_graph_flags). */
static int trace_build(step_trace *s, cudaGraph_t step,
                       const bench_namer *names, unsigned long long flags) {
  CUDA_CHECK(cudaGraphClone(&s->copy, step));
  if (graph_table_read(&s->table, s->copy) != 0) return -1;
  size_t n = (size_t)s->table.count + 1;
  s->row_node = calloc(n, sizeof *s->row_node);
  s->ready = calloc(n, sizeof *s->ready);
  s->end = calloc(n, sizeof *s->end);
  s->rows = calloc(n, sizeof *s->rows);
  s->samples = calloc((2 * n + 2) * BENCH_TRACE_REPLAYS, sizeof *s->samples);
  if (!s->row_node || !s->ready || !s->end || !s->rows || !s->samples) {
    fprintf(stderr, "mnist_bench: --trace-step: out of host memory\n");
    return -1;
  }
  if (trace_rows(s, names) != 0 || trace_add_events(s) != 0) return -1;
  CUDA_CHECK(cudaEventCreate(&s->start));
  CUDA_CHECK(cudaEventCreate(&s->stop));
  CUDA_CHECK(cudaGraphInstantiate(&s->plain, step, flags));
  CUDA_CHECK(cudaGraphInstantiate(&s->traced, s->copy, flags));
  return 0;
}

static float *samples_of(const step_trace *s, int series) {
  return s->samples + (size_t)series * BENCH_TRACE_REPLAYS;
}

/* One launch of `exec` between the start and stop events, waited for;
 * *us = its time. */
static int launch_timed(step_trace *s, cudaGraphExec_t exec,
                        cudaStream_t stream, float *us) {
  float ms = 0;
  CUDA_CHECK(cudaEventRecord(s->start, stream));
  CUDA_CHECK(cudaGraphLaunch(exec, stream));
  CUDA_CHECK(cudaEventRecord(s->stop, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaEventElapsedTime(&ms, s->start, s->stop));
  *us = 1000.0f * ms;
  return 0;
}

/* Replay r (< 0: warm-up, not kept): the untraced step, then the traced
 * one with every event read back. */
static int replay(step_trace *s, cudaStream_t stream, int r) {
  float plain, traced, ready, end;
  if (launch_timed(s, s->plain, stream, &plain) != 0 ||
      launch_timed(s, s->traced, stream, &traced) != 0)
    return -1;
  if (r < 0) return 0;
  samples_of(s, 0)[r] = plain;
  samples_of(s, 1)[r] = traced;
  for (int k = 0; k < s->kernels; k++) {
    CUDA_CHECK(cudaEventElapsedTime(&ready, s->start, s->ready[k]));
    CUDA_CHECK(cudaEventElapsedTime(&end, s->start, s->end[k]));
    samples_of(s, 2 + 2 * k)[r] = 1000.0f * ready;
    samples_of(s, 3 + 2 * k)[r] = 1000.0f * end;
  }
  return 0;
}

/* The medians, the critical path and the printed report. */
static int trace_report(step_trace *s, const char *title, int counted,
                        int chain) {
  float plain, plain_lo, plain_hi, traced, traced_lo, traced_hi, lo, hi;
  sample_stats(samples_of(s, 0), BENCH_TRACE_REPLAYS, &plain, &plain_lo,
               &plain_hi);
  sample_stats(samples_of(s, 1), BENCH_TRACE_REPLAYS, &traced, &traced_lo,
               &traced_hi);
  for (int k = 0; k < s->kernels; k++) {
    sample_stats(samples_of(s, 2 + 2 * k), BENCH_TRACE_REPLAYS,
                 &s->rows[k].ready_us, &lo, &hi);
    sample_stats(samples_of(s, 3 + 2 * k), BENCH_TRACE_REPLAYS,
                 &s->rows[k].end_us, &lo, &hi);
  }
  int *path_rows = calloc((size_t)s->kernels + 1, sizeof *path_rows);
  trace_path path = {.row = path_rows};
  if (!path_rows || trace_critical_path(&path, s->rows, s->kernels) < 0) {
    fprintf(stderr, "mnist_bench: --trace-step: no critical path\n");
    free(path_rows);
    return -1;
  }
  trace_mark_lanes(s->rows, s->kernels, &path);
  printf("\n## %s\n\nkernel nodes: %d (graph_count_step: %d, %d on "
         "its longest chain)\n",
         title, s->kernels, counted, chain);
  printf("step, median of %d replays (min-max): untraced %.2f us "
         "(%.2f-%.2f), traced %.2f us (%.2f-%.2f): tracing costs %.2f us\n",
         BENCH_TRACE_REPLAYS, plain, plain_lo, plain_hi, traced, traced_lo,
         traced_hi, traced - plain);
  printf("times: medians from an event recorded before the launch; ready: "
         "all its dependencies complete; lane: the graph does not record "
         "streams, so main = on the critical path, side = the rest\n\n");
  trace_print_markdown(stdout, s->rows, s->kernels, &path);
  free(path_rows);
  return 0;
}

/* The trainer's step: captured, traced, replayed and reported. */
static int trace_trainer(trainer *t, const gpu_context *ctx,
                         const char *title) {
  cudaStream_t stream = ctx->stream;
  int counted = 0, chain = 0, status = 0;
  if (graph_count_step(t, &counted, &chain) != 0) return -1;
  cudaGraph_t step = NULL;
  if (trainer_capture_step(t, &step) != 0) return -1;
  bench_namer names;
  bench_namer_init(&names);
  step_trace s;
  memset(&s, 0, sizeof s);
  status = trace_build(&s, step, &names, gpu_graph_flags(ctx));
  for (int r = -BENCH_TRACE_WARMUP; status == 0 && r < BENCH_TRACE_REPLAYS; r++)
    status = replay(&s, stream, r);
  if (status == 0) status = trace_report(&s, title, counted, chain);
  trace_destroy(&s);
  cudaGraphDestroy(step);
  return status;
}

int bench_trace_steps(const mnist_dataset *data, gpu_context *ctx,
                      lt_activation activation, int only_network,
                      int pad_multiple, const fp8_recipe *fp8) {
  int net_count;
  const bench_net *nets = bench_nets(&net_count);
  bench_row row = {
      .mode = MLP_MODE_AUTO, .pad_units = 1, .activation = activation};
  for (int n = 0; n < net_count; n++) {
    if (nets[n].batch > BENCH_TRACE_MAX_BATCH) continue;
    if (only_network != 0 && n != only_network - 1) continue;
    trainer_config c;
    char err[128], name[64], label[32], title[320];
    if (bench_net_config(&c, &nets[n], err, sizeof err) != 0) {
      fprintf(stderr, "mnist_bench: %s\n", err);
      return -1;
    }
    c.epochs = 1;
    c.mode = row.mode;
    c.pad_units = row.pad_units;
    c.pad_multiple = pad_multiple;
    c.activation = activation;
    c.fp8 = *fp8;
    trainer_config_name(name, sizeof name, &c);
    bench_row_label(label, sizeof label, &row);
    char chain[128];
    gpu_chain_format(chain, sizeof chain, ctx->options.chain);
    snprintf(title, sizeof title,
             "%s batch %d, %s, %s to %d (activation %s, chain %s)", name,
             c.batch, gpu_precision_name(ctx->options.precision), label,
             pad_multiple > 0 ? pad_multiple : 8,
             lt_activation_name(activation), chain);
    trainer *t = NULL;
    epoch_stats stats;
    int status = trainer_create(&t, ctx, data, &c);
    if (status == 0) status = trainer_run_epoch(t, 0, &stats);
    if (status == 1)
      fprintf(stderr,
              "mnist_bench: --trace-step: the warm-up epoch of %s "
              "ended with a loss that is not finite\n",
              title);
    if (status == 0) status = trace_trainer(t, ctx, title);
    trainer_destroy(t);
    if (status != 0) return -1;
  }
  return 0;
}
