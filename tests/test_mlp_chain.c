/* test_mlp_chain.c: the issue-20 chain switches (gpu_options.chain) only
 * reschedule: each alone and all together give bit for bit the parameters,
 * momentum and gradients of GPU_CHAIN_NONE after training steps launched
 * from the host and replayed from a CUDA graph (so the side lane's forks
 * and joins also capture), fused and unfused, FP32 and padded BF16, with
 * a three-layer network (two DRELU_BGRAD calls) and a one-layer one (no
 * side work under sgd-lane). Also: side-partials with sgd-lane shortens
 * the unfused step's longest kernel chain, and the context sets the lanes'
 * priorities and the graph flags it promises. GPU only: skips (77) without one.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "bench/graph_count.h"
#include "gpu/gpu_check.h"
#include "gpu/gpu_graph.h"
#include "layers/mlp.h"
#include "tests/test_batch.h"
#include "tests/test_gpu.h"
#include "tests/test_util.h"

static uint64_t seed;

static const unsigned variants[] = {GPU_CHAIN_SIDE_PARTIALS, GPU_CHAIN_SGD_LANE,
                                    GPU_CHAIN_PRIORITIES, GPU_CHAIN_TRIGGER,
                                    GPU_CHAIN_ALL};
enum { VARIANTS = (int)(sizeof variants / sizeof variants[0]) };

/* Batches alternate between a full and a partial one (two plans each). */
enum { BATCH = 96, PARTIAL = 61, HOST_STEPS = 3, GRAPH_STEPS = 4 };

typedef struct chain_run {
  gpu_context *ctx;
  mlp *net;
  test_batch batch;
  float *d_lr;
  double *d_stats;
  mlp_mode mode;
} chain_run;

static gpu_context *chain_context(gpu_precision precision, unsigned chain) {
  gpu_options o = gpu_options_defaults();
  o.precision = precision;
  o.chain = chain;
  gpu_context *ctx = NULL;
  ck_assert_int_eq(gpu_context_create(&ctx, &o), 0);
  return ctx;
}

static int step(chain_run *r, int s) {
  return mlp_train_step(r->net, r->ctx, r->batch.d_x, r->batch.d_labels,
                        s % 2 ? PARTIAL : BATCH, r->mode, r->d_lr, 0.9f,
                        r->d_stats);
}

static int enqueue_steps(void *arg) {
  for (int s = 0; s < GRAPH_STEPS; s++)
    if (step(arg, s) != 0) return -1;
  return 0;
}

static void run_open(chain_run *r, const int *widths, int depth,
                     gpu_precision precision, unsigned chain, mlp_mode mode) {
  memset(r, 0, sizeof *r);
  r->ctx = chain_context(precision, chain);
  r->mode = mode;
  lt_dtype type = lt_precision_dtype(precision);
  /* BF16 padded to 16 (784-112-112-16): the side partials at other widths. */
  mlp_options options = {
      .type = type, .pad_units = type != LT_DTYPE_F32, .pad_multiple = 16};
  ck_assert_int_eq(mlp_create(&r->net, widths, depth, BATCH, &options), 0);
  ck_assert_int_eq(mlp_init_params(r->net, r->ctx, seed), 0);
  test_rng rng;
  test_rng_init(&rng, seed);
  r->batch = test_batch_make(&rng, 784, BATCH, 10, type);
  r->d_stats = test_upload(NULL, 2 * sizeof(double));
  test_fill_device(r->d_stats, 0, 2 * sizeof(double));
  const float lr = 0.05f;
  r->d_lr = test_upload(&lr, sizeof lr);
}

static void run_close(chain_run *r) {
  test_free(r->d_stats);
  test_free(r->d_lr);
  test_batch_free(&r->batch);
  mlp_destroy(r->net);
  gpu_context_destroy(r->ctx);
}

/* Host steps, then a graph of GRAPH_STEPS replayed twice; returns the
 * parameters, momentum and gradients, one after the other (bytes in
 * *size). */
static unsigned char *train_state(const int *widths, int depth,
                                  gpu_precision precision, unsigned chain,
                                  mlp_mode mode, size_t *size) {
  chain_run r;
  run_open(&r, widths, depth, precision, chain, mode);
  for (int s = 0; s < HOST_STEPS; s++)
    ck_assert_int_eq(step(&r, s), 0);
  test_graph_replay(r.ctx, enqueue_steps, &r, 2);
  size_t floats = r.net->layout.slab_floats * sizeof(float);
  size_t grads = r.net->layout.slab_floats * lt_dtype_size(r.net->type);
  *size = 2 * floats + grads;
  unsigned char *state = malloc(*size);
  test_download(state, r.net->d_params, floats);
  test_download(state + floats, r.net->d_velocity, floats);
  test_download(state + 2 * floats, r.net->d_grads, grads);
  run_close(&r);
  return state;
}

/* Index: variant, then mode (fused, unfused), then precision (FP32, BF16). */
START_TEST(each_switch_is_bitwise_none) {
  unsigned chain = variants[_i % VARIANTS];
  mlp_mode mode = (_i / VARIANTS) % 2 ? MLP_MODE_UNFUSED : MLP_MODE_FUSED;
  gpu_precision precision =
      _i / (2 * VARIANTS) ? GPU_PRECISION_BF16 : GPU_PRECISION_FP32;
  const int deep[4] = {784, 129, 100, 10}, flat[2] = {784, 10};
  const int *widths[2] = {deep, flat};
  const int depths[2] = {3, 1};
  for (int w = 0; w < 2; w++) {
    size_t size = 0, size_none = 0;
    unsigned char *none = train_state(widths[w], depths[w], precision,
                                      GPU_CHAIN_NONE, mode, &size_none);
    unsigned char *got =
        train_state(widths[w], depths[w], precision, chain, mode, &size);
    ck_assert_uint_eq(size, size_none);
    ck_assert_msg(memcmp(none, got, size) == 0,
                  "chain 0x%x, mode %s, %s, depth %d, seed %llu: parameters, "
                  "momentum or gradients differ from chain none",
                  chain, mlp_mode_name(mode), gpu_precision_name(precision),
                  depths[w], (unsigned long long)seed);
    free(none);
    free(got);
  }
}
END_TEST

/* The longest chain of kernels of GRAPH_STEPS captured unfused FP32
 * steps. */
static int step_chain(unsigned chain) {
  const int widths[4] = {784, 129, 100, 10};
  chain_run r;
  run_open(&r, widths, 3, GPU_PRECISION_FP32, chain, MLP_MODE_UNFUSED);
  for (int s = 0; s < 2; s++) /* both batches' plans, outside capture */
    ck_assert_int_eq(step(&r, s), 0);
  test_sync(r.ctx);
  cudaGraph_t graph = NULL;
  ck_assert_int_eq(gpu_graph_capture(&graph, r.ctx->stream, enqueue_steps, &r),
                   0);
  int count = 0, critical = 0;
  ck_assert_int_eq(graph_count_kernels(graph, &count, &critical), 0);
  cudaGraphDestroy(graph);
  run_close(&r);
  return critical;
}

/* Side partials alone move the add_partials kernels off the main lane but
 * queue them on the side lane, before the weight gradients: counted in
 * kernels, no shorter (784-129-100-10 unfused: both 15 per step when
 * every matmul is one kernel; the time gained, if any, is the H200's to
 * measure). With the first weight gradient on SGD's lane too, the main
 * lane runs the data-gradient matmuls and row sums back to back and the
 * longest chain is shorter. */
START_TEST(side_partials_with_sgd_lane_shorten_the_chain) {
  int none = step_chain(GPU_CHAIN_NONE);
  int side = step_chain(GPU_CHAIN_SIDE_PARTIALS);
  int both = step_chain(GPU_CHAIN_SIDE_PARTIALS | GPU_CHAIN_SGD_LANE);
  ck_assert_msg(both < none,
                "kernels on the longest chain of %d steps: none %d, "
                "side-partials %d, side-partials + sgd-lane %d",
                GRAPH_STEPS, none, side, both);
}
END_TEST

START_TEST(context_sets_priorities_and_trigger) {
  int least = 0, greatest = 0;
  ck_assert_int_eq(cudaDeviceGetStreamPriorityRange(&least, &greatest),
                   cudaSuccess);
  for (int on = 0; on < 2; on++) {
    gpu_context *ctx = chain_context(
        GPU_PRECISION_FP32,
        on ? GPU_CHAIN_PRIORITIES | GPU_CHAIN_TRIGGER : GPU_CHAIN_NONE);
    int main_priority = 1, side_priority = 1;
    ck_assert_int_eq(cudaStreamGetPriority(ctx->stream, &main_priority),
                     cudaSuccess);
    ck_assert_int_eq(cudaStreamGetPriority(ctx->side_stream, &side_priority),
                     cudaSuccess);
    ck_assert_int_eq(main_priority, on ? greatest : 0);
    ck_assert_int_eq(side_priority, on ? least : 0);
    ck_assert(gpu_graph_flags(ctx) ==
              (on ? (unsigned long long)cudaGraphInstantiateFlagUseNodePriority
                  : 0ull));
    ck_assert_int_eq(ctx->early.trigger, on);
    gpu_context_destroy(ctx);
  }
}
END_TEST

int main(void) {
  test_require_gpu("mlp_chain");
  seed = test_seed("mlp_chain");
  Suite *suite = suite_create("mlp_chain");
  TCase *tc = tcase_create("chain");
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, each_switch_is_bitwise_none, 0, 4 * VARIANTS);
  tcase_add_test(tc, side_partials_with_sgd_lane_shorten_the_chain);
  tcase_add_test(tc, context_sets_priorities_and_trigger);
  suite_add_tcase(suite, tc);
  return test_run_suite(suite, 1);
}
