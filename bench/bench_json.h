/* bench_json.h: the --json document of mnist_bench, built with cJSON:
 *   {"gpu", "matmul_tflops": {precision: TFLOP/s}, "launch_us", "autotune",
 *    "training": [one object per trained row], "calls": [one per call]}
 * with the key names, order and value types that scripts/plot_bench.py and
 * scripts/bench_compare.sh read (docs/bench/ours-1.json is one). Numbers are
 * rounded to the decimals the table prints. Written whole, atomically
 * (bench_output.h). Plain C. */
#ifndef MNIST_EPILOGS_BENCH_JSON_H
#define MNIST_EPILOGS_BENCH_JSON_H

#include <stddef.h>

typedef struct bench_json bench_json;

/* One "training" entry: a row's epochs. */
typedef struct bench_training_record {
  const char *network; /* "784-100-10" */
  int batch;
  const char *mode; /* "fused", "unfused", "auto" (no +pad, +gelu) */
  const char *precision;
  int graphs;
  double ms_per_epoch, ms_min, ms_max, us_per_step;
  int kernels_per_step, critical_path_kernels;
  double launch_floor_ms, tflops, fraction_of_peak, speedup_vs_fused;
  double test_accuracy;
  int repeats;         /* timed epochs per creation order */
  int creation_orders; /* orders the row's twin group was made in
                          (bench_creation_order): the median is over
                          repeats x creation_orders epochs; 0: no key
                          (documents written before it) */
  int pad_units;
  const char *activation;
  const char *chain; /* the step's --chain, resolved (gpu_chain_format) */
  /* The step tuner's chosen set (the first creation order's): its
   * fingerprint, 8 hex digits, "tuned_set" (NULL: no key, the step was not
   * tuned, --autotune off with fused or unfused, or its set not named);
   * and how many of its algorithm slots hold a candidate other than
   * cuBLASLt's first, "algorithms_moved" (0: the algorithms --autotune off
   * runs, so also 0 where nothing was tuned; -1: no key, as in documents
   * written before it). Two rows of one step with 0 moved and equal ways
   * ran the same kernels. */
  const char *tuned_set;
  int algorithms_moved;
  /* --against-off (bench_off.h): 1 writes "vs_off", "vs_off_min" and
   * "vs_off_max", the row's epoch over its --autotune off twin's in the
   * same process, median (min-max) over the rounds; 0: no such keys */
  int against_off;
  double vs_off, vs_off_min, vs_off_max;
  /* With them: off's median ms per epoch in the pairs, "off_ms_per_epoch",
   * and "same_launches_as_off" (bench_graph_launches): true, false, or no
   * key where not known (-1) */
  double off_ms_per_epoch;
  int same_launches_as_off;
} bench_training_record;

/* One "calls" entry: a call of one step. fused_us = 0: a DEFAULT call,
 * which has no fused or unfused time (nor their ratio) in the document.
 * split_us > 0: the split way's time (DRELU_BGRAD, DGELU_BGRAD, where
 * cuBLASLt plans it), written as "split_us"; else no such key. */
typedef struct bench_call_record {
  const char *network, *precision, *activation;
  const char *call; /* "forward 1", "data grad 2->1", "weights 1" */
  const char *lane; /* "main" or "side" */
  int m, n, k;
  const char *epilogue;
  double matmul_us, fused_us, unfused_us, split_us;
} bench_call_record;

/* An empty document (no peaks, rows or calls) for GPU `gpu`. Returns 0, or
 * -1 (out of memory; message on stderr). */
int bench_json_create(bench_json **out, const char *gpu, double launch_us,
                      const char *autotune);
void bench_json_destroy(bench_json *doc);

/* Appends to "matmul_tflops" / "training" / "calls". Return 0, or -1 (out
 * of memory: the document is then marked failed and cannot be written). */
int bench_json_add_peak(bench_json *doc, const char *precision, double tflops);
int bench_json_add_training(bench_json *doc, const bench_training_record *r);
int bench_json_add_call(bench_json *doc, const bench_call_record *r);

/* Prints the document and replaces `path` with it (bench_output_replace).
 * Returns 0, or -1 with a message on stderr, `path` untouched and no
 * temporary left. */
int bench_json_write(const bench_json *doc, const char *path);

#endif
