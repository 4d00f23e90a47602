/* lt_auto.c: the per-call choice between fused, unfused and split
 * (lt_auto.h). */
#include "lt/lt_auto.h"

#include "gpu/gpu_check.h"
#include "gpu/gpu_graph.h"
#include "gpu/sample_stats.h"
#include "lt/lt_plan.h"
#include "lt/lt_refuse.h"
#include "lt/lt_split.h"
#include "lt/lt_unfused.h"

/* Calls per graph and replays timed (the median counts). */
enum { LT_AUTO_REPS = 20, LT_AUTO_REPLAYS = 5 };
/* Another way must beat the fused call by this factor to be chosen:
 * near-ties stay fused, so timing noise rarely flips a choice between
 * runs (a flip changes the last bits of the results). */
#define LT_AUTO_MARGIN 1.03f

/* Enqueues the call the way `way` (an lt_auto_choice) says. */
static int run(gpu_context *ctx, int lane, const lt_matmul_call *call,
               int way) {
  return way == LT_AUTO_UNFUSED ? lt_matmul_unfused_on(ctx, lane, call)
         : way == LT_AUTO_SPLIT ? lt_matmul_split_on(ctx, lane, call)
                                : lt_matmul_on(ctx, lane, call);
}

/* The timed graph's body: LT_AUTO_REPS calls, one way. */
typedef struct auto_reps {
  gpu_context *ctx;
  int lane, way;
  const lt_matmul_call *call;
} auto_reps;

static int enqueue_reps(void *arg) {
  const auto_reps *r = arg;
  int status = 0;
  for (int i = 0; i < LT_AUTO_REPS && status == 0; i++)
    status = run(r->ctx, r->lane, r->call, r->way);
  return status;
}

/* Captures LT_AUTO_REPS calls on the lane's stream into a graph. */
static int capture_reps(gpu_context *ctx, int lane, const lt_matmul_call *call,
                        int way, cudaGraphExec_t *exec) {
  auto_reps reps = {ctx, lane, way, call};
  ctx->last_error[0] = '\0';
  if (gpu_graph_capture_exec(exec, gpu_lane_stream(ctx, lane), 0, enqueue_reps,
                             &reps) == 0)
    return 0;
  if (!ctx->last_error[0])
    lt_refuse(ctx, &call->shape,
              "capturing the auto timing failed (see the line above)");
  return -1;
}

/* Median time of one call (microseconds), run as graph replays. */
static int time_call(gpu_context *ctx, int lane, const lt_matmul_call *call,
                     int way, float *us) {
  cudaStream_t stream = gpu_lane_stream(ctx, lane);
  cudaGraphExec_t exec = NULL;
  cudaEvent_t ev[2] = {NULL, NULL};
  float times[LT_AUTO_REPLAYS];
  int status = capture_reps(ctx, lane, call, way, &exec);
  if (status == 0 && (cudaEventCreate(&ev[0]) != cudaSuccess ||
                      cudaEventCreate(&ev[1]) != cudaSuccess))
    status = lt_refuse(ctx, &call->shape, "could not create timing events");
  /* Replay 0 warms up (first launch uploads the graph). */
  for (int r = -1; r < LT_AUTO_REPLAYS && status == 0; r++) {
    float ms = 0.0f;
    if (cudaEventRecord(ev[0], stream) != cudaSuccess ||
        cudaGraphLaunch(exec, stream) != cudaSuccess ||
        cudaEventRecord(ev[1], stream) != cudaSuccess ||
        cudaEventSynchronize(ev[1]) != cudaSuccess ||
        cudaEventElapsedTime(&ms, ev[0], ev[1]) != cudaSuccess)
      status = lt_refuse(ctx, &call->shape, "timing the call failed: %s",
                         cudaGetErrorString(cudaGetLastError()));
    else if (r >= 0)
      times[r] = ms * 1000.0f / LT_AUTO_REPS;
  }
  if (ev[1]) cudaEventDestroy(ev[1]);
  if (ev[0]) cudaEventDestroy(ev[0]);
  if (exec) cudaGraphExecDestroy(exec);
  if (status != 0) return -1;
  sample_stats(times, LT_AUTO_REPLAYS, us, NULL, NULL);
  return 0;
}

/* Times each way of the call on its lane into info (fused_us, unfused_us,
 * split_us). */
static int decide(gpu_context *ctx, int lane, const lt_matmul_call *given,
                  lt_plan_info *info) {
  /* Timed on the lane alone, whatever the chain (GPU_CHAIN_SIDE_PARTIALS
   * would fork the timed graph to the side lane and leave it unjoined):
   * the choice does not depend on --chain. */
  lt_matmul_call lane_only = *given;
  lane_only.d_partials = NULL;
  const lt_matmul_call *call = &lane_only;
  enum cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  CUDA_CHECK(cudaStreamIsCapturing(gpu_lane_stream(ctx, lane), &capture));
  if (capture != cudaStreamCaptureStatusNone)
    return lt_refuse(ctx, &call->shape,
                     "--mode auto decides outside graph capture; run the "
                     "step once before capturing it");
  /* The split way only where cuBLASLt plans its DRELU / DGELU GEMM (its
   * refusal is printed once, here, and kept as LT_SPLIT_REFUSED). */
  int split = lt_epilogue_has_split(call->shape.epilogue);
  lt_matmul_call gemm = lt_call_split(call);
  if (split && lt_matmul_plannable(ctx, &gemm) != 0) {
    split = 0;
    info->split_us = LT_SPLIT_REFUSED;
  }
  /* Every way once (builds the plans it uses), and an idle device: the
   * other lane's work must not share the timing. */
  if (run(ctx, lane, call, LT_AUTO_FUSED) != 0 ||
      run(ctx, lane, call, LT_AUTO_UNFUSED) != 0 ||
      (split && run(ctx, lane, call, LT_AUTO_SPLIT) != 0))
    return -1;
  CUDA_CHECK(cudaDeviceSynchronize());
  if (time_call(ctx, lane, call, LT_AUTO_FUSED, &info->fused_us) != 0 ||
      time_call(ctx, lane, call, LT_AUTO_UNFUSED, &info->unfused_us) != 0 ||
      (split &&
       time_call(ctx, lane, call, LT_AUTO_SPLIT, &info->split_us) != 0))
    return -1;
  return 0;
}

/* Fused unless the faster of unfused and split (where it was timed) beats
 * it by LT_AUTO_MARGIN. */
static lt_auto_choice choose(const lt_plan_info *info) {
  lt_auto_choice other = LT_AUTO_UNFUSED;
  float other_us = info->unfused_us;
  if (info->split_us > 0.0f && info->split_us < other_us) {
    other = LT_AUTO_SPLIT;
    other_us = info->split_us;
  }
  return other_us * LT_AUTO_MARGIN < info->fused_us ? other : LT_AUTO_FUSED;
}

int lt_matmul_auto_choice(gpu_context *ctx, int lane,
                          const lt_matmul_call *call, int *way,
                          float way_us[LT_AUTO_SPLIT + 1]) {
  *way = LT_AUTO_FUSED;
  if (way_us)
    for (int w = 0; w <= LT_AUTO_SPLIT; w++)
      way_us[w] = 0.0f;
  if (call->shape.epilogue == LT_EPILOGUE_DEFAULT) return 0;
  lt_plan *p = lt_plan_for(ctx, call);
  if (!p) return -1;
  if (p->info.auto_choice == LT_AUTO_UNDECIDED) {
    lt_plan_info timed = p->info;
    timed.split_us = 0.0f;
    if (decide(ctx, lane, call, &timed) != 0) return -1;
    p->info.fused_us = timed.fused_us;
    p->info.unfused_us = timed.unfused_us;
    p->info.split_us = timed.split_us;
    p->info.auto_choice = choose(&timed);
  }
  *way = p->info.auto_choice;
  if (way_us) {
    way_us[LT_AUTO_FUSED] = p->info.fused_us;
    way_us[LT_AUTO_UNFUSED] = p->info.unfused_us;
    way_us[LT_AUTO_SPLIT] = p->info.split_us > 0.0f ? p->info.split_us : 0.0f;
  }
  return 0;
}

int lt_matmul_auto_on(gpu_context *ctx, int lane, const lt_matmul_call *call) {
  if (call->shape.epilogue == LT_EPILOGUE_DEFAULT)
    return lt_matmul_on(ctx, lane, call);
  if (call->pick.way >= LT_AUTO_FUSED && call->pick.way <= LT_AUTO_SPLIT)
    return run(ctx, lane, call, call->pick.way);
  int way;
  if (lt_matmul_auto_choice(ctx, lane, call, &way, NULL) != 0) return -1;
  return run(ctx, lane, call, way);
}
