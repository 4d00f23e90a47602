/* lt_autotune.c: which of a plan's candidates compute the first one's
 * numbers, and how long each takes alone (lt_autotune.h). */
#include "lt/lt_autotune.h"

#include <stdlib.h>
#include <string.h>

#include "gpu/gpu_check.h"
#include "lt/lt_refuse.h"

/* Launches per candidate timed alone (after one untimed): their mean
 * counts, the least of LT_TIMED_ROUNDS rounds. Only orders and filters the
 * step tuner's visits (train/tune_search.h), so a few suffice; but a round
 * can run beside other work on the GPU (a tuner apart runs while the
 * training's context starts): at 784-100-10 FP32 a process apart never
 * tried the weights GEMM's candidate #4 that another process timed at
 * 14.1 us alone against the chosen #3's 23.6 (session 15, call B:
 * test_step_tune's fingerprints 5493d55a and 7b3e1847). So the least of
 * three rounds. They run back to back: a disturbance that lasts as long
 * as the three reaches them all. */
enum { LT_TIMED_RUNS = 3, LT_TIMED_ROUNDS = 3 };
/* GPU_AUTOTUNE_FAST: the largest max|out - out_first| / max|out_first| a
 * candidate may show. FP32 sums of k <= 10^4 products in another order
 * differ by ~sqrt(k) * 6e-8 ~ 1e-5 relative; TF32 inputs carry 10 mantissa
 * bits (~5e-4 each). Wrong results are O(1). */
#define LT_MATCH_FP32 1e-4f
#define LT_MATCH_TF32 1e-2f

/* 16-bit outputs: FP32 sums in another order differ by ~1e-5 relative, and
 * the rounding to the storage type can then differ by one unit in the last
 * place: 2u (2^-7 BF16, 2^-10 FP16) relative to the element, bounded here
 * by 4u of the largest element (an element near 0 may move by u of the
 * largest through cancellation). Wrong results are O(1). */
int lt_autotune_accepts(gpu_autotune autotune, lt_dtype type, int tf32,
                        const lt_comparison *c) {
  if (autotune == GPU_AUTOTUNE_EXACT)
    return c->words_differ == 0 && c->mask_bits_differ == 0;
  float tolerance = type != LT_DTYPE_F32
                        ? 4.0f * (float)lt_dtype_unit_roundoff(type)
                    : tf32 ? LT_MATCH_TF32
                           : LT_MATCH_FP32;
  return c->max_diff <= tolerance * c->max_ref; /* false for NaN */
}

/* The first candidate's outputs, and room for the comparisons:
 * [0] D, [1] bias gradient, [2] the aux written (ReLU mask, or the GELU
 * input). */
struct lt_tune_reference {
  lt_shape shape;
  void *d_ref;               /* (m, n), ld = m: copy of D */
  void *d_ref_bias;          /* copy of the bias gradient, or NULL */
  void *d_ref_aux;           /* copy of the aux a forward epilogue writes, or
                                NULL */
  float *d_ref_amax;         /* copy of an FP8 D's amax, or NULL */
  lt_comparison *d_compared; /* [4]: D, bias gradient, aux, amax */
  int bias_len;
  size_t aux_bytes;
};

/* Bytes of one element of D: 1 for an FP8 D, else the storage type's. */
static size_t d_size(const lt_shape *shape) {
  return shape->d_fp8 != LT_FP8_NONE ? 1 : lt_dtype_size(shape->type);
}

static int reference_init(lt_tune_reference *r, const lt_shape *shape) {
  r->shape = *shape;
  r->bias_len = lt_bias_grad_length(shape);
  if (shape->epilogue == LT_EPILOGUE_RELU_AUX_BIAS ||
      shape->epilogue == LT_EPILOGUE_GELU_AUX_BIAS)
    r->aux_bytes = lt_call_aux_bytes(shape);
  size_t size = lt_dtype_size(shape->type);
  CUDA_CHECK(
      cudaMalloc(&r->d_ref, (size_t)shape->m * shape->n * d_size(shape)));
  CUDA_CHECK(cudaMalloc((void **)&r->d_compared, 4 * sizeof(lt_comparison)));
  if (shape->d_fp8 != LT_FP8_NONE)
    CUDA_CHECK(cudaMalloc((void **)&r->d_ref_amax, sizeof(float)));
  if (r->bias_len)
    CUDA_CHECK(cudaMalloc(&r->d_ref_bias, (size_t)r->bias_len * size));
  if (r->aux_bytes) CUDA_CHECK(cudaMalloc(&r->d_ref_aux, r->aux_bytes));
  return 0;
}

int lt_tune_reference_create(lt_tune_reference **out, const lt_shape *shape) {
  *out = calloc(1, sizeof **out);
  if (!*out) return -1;
  if (reference_init(*out, shape) != 0) {
    lt_tune_reference_destroy(*out);
    *out = NULL;
    return -1;
  }
  return 0;
}

void lt_tune_reference_destroy(lt_tune_reference *r) {
  if (!r) return;
  cudaFree(r->d_ref_aux);
  cudaFree(r->d_ref_bias);
  cudaFree(r->d_compared);
  cudaFree(r->d_ref_amax);
  cudaFree(r->d_ref);
  free(r);
}

int lt_tune_reference_keep(lt_tune_reference *r, const lt_matmul_call *c,
                           cudaStream_t stream) {
  const lt_shape *sh = &r->shape;
  size_t size = lt_dtype_size(sh->type), dsize = d_size(sh);
  CUDA_CHECK(cudaMemcpy2DAsync(
      r->d_ref, (size_t)sh->m * dsize, c->d_d, (size_t)sh->ldd * dsize,
      (size_t)sh->m * dsize, (size_t)sh->n, cudaMemcpyDeviceToDevice, stream));
  if (r->bias_len)
    CUDA_CHECK(cudaMemcpyAsync(r->d_ref_bias, c->d_bias_grad,
                               (size_t)r->bias_len * size,
                               cudaMemcpyDeviceToDevice, stream));
  if (r->aux_bytes)
    CUDA_CHECK(cudaMemcpyAsync(r->d_ref_aux, c->d_aux, r->aux_bytes,
                               cudaMemcpyDeviceToDevice, stream));
  if (r->d_ref_amax)
    CUDA_CHECK(cudaMemcpyAsync(r->d_ref_amax, c->d_amax_d, sizeof(float),
                               cudaMemcpyDeviceToDevice, stream));
  return 0;
}

int lt_tune_reference_matches(lt_tune_reference *r, const lt_matmul_call *c,
                              gpu_autotune autotune, int tf32,
                              cudaStream_t stream, int *same) {
  const lt_shape *sh = &r->shape;
  lt_comparison h[4];
  memset(h, 0, sizeof h);
  CUDA_CHECK(cudaMemsetAsync(r->d_compared, 0, sizeof h, stream));
  int fp8_d = sh->d_fp8 != LT_FP8_NONE;
  if ((fp8_d ? lt_compare_bytes(&r->d_compared[0], c->d_d, sh->ldd, r->d_ref,
                                sh->m, sh->m, sh->n, stream)
             : lt_compare_values(&r->d_compared[0], sh->type, c->d_d, sh->ldd,
                                 r->d_ref, sh->m, sh->m, sh->n, stream)) != 0 ||
      (r->bias_len &&
       lt_compare_values(&r->d_compared[1], sh->type, c->d_bias_grad,
                         r->bias_len, r->d_ref_bias, r->bias_len, r->bias_len,
                         1, stream) != 0) ||
      (r->aux_bytes && lt_epilogue_aux_is_mask(sh->epilogue) &&
       lt_compare_masks(&r->d_compared[2], (const uint8_t *)c->d_aux,
                        (const uint8_t *)r->d_ref_aux, sh->aux_ld, sh->m, sh->n,
                        stream) != 0) ||
      (r->aux_bytes && !lt_epilogue_aux_is_mask(sh->epilogue) &&
       lt_compare_values(&r->d_compared[2], sh->type, c->d_aux, sh->aux_ld,
                         r->d_ref_aux, sh->aux_ld, sh->m, sh->n,
                         stream) != 0) ||
      (r->d_ref_amax && lt_compare_bytes(&r->d_compared[3], c->d_amax_d, 4,
                                         r->d_ref_amax, 4, 4, 1, stream) != 0))
    return -1;
  CUDA_CHECK(cudaMemcpyAsync(h, r->d_compared, sizeof h, cudaMemcpyDeviceToHost,
                             stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  /* An FP8 D and its amax (which feeds the scaling history) are judged
   * byte for byte under either rule: its codes hold no magnitude the
   * tolerance could be applied to without decoding them. */
  *same = !fp8_d || (h[0].words_differ == 0 && h[3].words_differ == 0);
  for (int i = 0; i < 3; i++)
    *same = *same && lt_autotune_accepts(autotune, sh->type, tf32, &h[i]);
  return 0;
}

/* The call's probe: the same call on scratch A, B and D filled by
 * lt_probe_fill, with the call's own bias, aux and scale pointers (bound
 * on the descriptor before the check: lt_plan_bind), except an FP8 D's
 * scale and amax, which are the probe's own (scale 1: the probe's small
 * values stay in E4M3's normal range instead of the real call's scale). */
typedef struct probe {
  lt_matmul_call call;
  void *d_a, *d_b, *d_d;
  float *d_scale_amax; /* an FP8 D's: [0] its scale (1), [4] its amax */
} probe;

/* Bytes of a stored (ld, cols) matrix of `size`-byte elements. */
static size_t stored_bytes(int ld, int cols, size_t size) {
  return (size_t)ld * (size_t)cols * size;
}

static int probe_create(probe *pr, const lt_matmul_call *call,
                        cudaStream_t stream) {
  const lt_shape *s = &call->shape;
  size_t a_size = s->a_fp8 ? 1 : lt_dtype_size(s->type);
  size_t b_size = s->b_fp8 ? 1 : lt_dtype_size(s->type);
  pr->call = *call;
  CUDA_CHECK(cudaMalloc(&pr->d_a,
                        stored_bytes(s->lda, s->transa ? s->m : s->k, a_size)));
  CUDA_CHECK(cudaMalloc(&pr->d_b,
                        stored_bytes(s->ldb, s->transb ? s->k : s->n, b_size)));
  CUDA_CHECK(
      cudaMalloc(&pr->d_d, stored_bytes(s->ldd, s->n, lt_dtype_size(s->type))));
  pr->call.d_a = pr->d_a;
  pr->call.d_b = pr->d_b;
  pr->call.d_d = pr->d_d;
  if (s->d_fp8 != LT_FP8_NONE) {
    const float one[8] = {1.0f};
    CUDA_CHECK(cudaMalloc((void **)&pr->d_scale_amax, sizeof one));
    CUDA_CHECK(
        cudaMemcpy(pr->d_scale_amax, one, sizeof one, cudaMemcpyHostToDevice));
    pr->call.d_d_scale = pr->d_scale_amax;    /* 16-byte aligned */
    pr->call.d_amax_d = pr->d_scale_amax + 4; /* 16 bytes further */
  }
  return lt_probe_fill(pr->d_a, pr->d_b, s, stream);
}

static void probe_destroy(probe *pr) {
  cudaFree(pr->d_scale_amax);
  cudaFree(pr->d_d);
  cudaFree(pr->d_b);
  cudaFree(pr->d_a);
}

/* lt_plan_launch with `c`'s pointers bound on the descriptor first: the
 * plan may be shared with another call that set its own (lt_plan_bind). */
static cublasStatus_t launch(gpu_context *ctx, int lane, lt_plan *p,
                             const lt_matmul_call *c,
                             const cublasLtMatmulAlgo_t *algo) {
  if (lt_plan_bind(ctx, p, c) != 0) return CUBLAS_STATUS_INTERNAL_ERROR;
  return lt_plan_launch(ctx, lane, p, c, algo);
}

/* The least over LT_TIMED_ROUNDS rounds of the mean time of LT_TIMED_RUNS
 * launches of candidate `i` alone on the lane, after one untimed launch,
 * in microseconds. */
static int time_alone(gpu_context *ctx, int lane, lt_plan *p,
                      const lt_matmul_call *c, int i, cudaEvent_t *ev,
                      float *us) {
  cudaStream_t stream = gpu_lane_stream(ctx, lane);
  CUBLAS_CHECK(launch(ctx, lane, p, c, &p->cand[i]));
  for (int round = 0; round < LT_TIMED_ROUNDS; round++) {
    CUDA_CHECK(cudaEventRecord(ev[0], stream));
    for (int r = 0; r < LT_TIMED_RUNS; r++)
      CUBLAS_CHECK(launch(ctx, lane, p, c, &p->cand[i]));
    CUDA_CHECK(cudaEventRecord(ev[1], stream));
    CUDA_CHECK(cudaEventSynchronize(ev[1]));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, ev[0], ev[1]));
    float mean = ms * 1000.0f / LT_TIMED_RUNS;
    if (round == 0 || mean < *us) *us = mean;
  }
  return 0;
}

/* *same = 1 when candidate i computes what the kept first one computed on
 * `c` (kept in `ref`). A candidate that fails to launch is not the same. */
static int candidate_same(gpu_context *ctx, int lane, lt_plan *p,
                          const lt_matmul_call *c, int i,
                          lt_tune_reference *ref, int *same) {
  *same = 0;
  if (launch(ctx, lane, p, c, &p->cand[i]) != CUBLAS_STATUS_SUCCESS) return 0;
  return lt_tune_reference_matches(ref, c, ctx->options.autotune, p->info.tf32,
                                   gpu_lane_stream(ctx, lane), same);
}

/* The check itself, with its scratch made: candidate 0's outputs kept on
 * the call and on the probe, then each other candidate compared on both
 * (the probe only under EXACT) and, when accepted, timed. */
static int check(gpu_context *ctx, int lane, lt_plan *p,
                 const lt_matmul_call *c, lt_tune_reference *ref[2],
                 const probe *pr, cudaEvent_t *ev) {
  cudaStream_t stream = gpu_lane_stream(ctx, lane);
  int exact = ctx->options.autotune == GPU_AUTOTUNE_EXACT;
  memset(p->cand_ok, 0, sizeof p->cand_ok);
  memset(p->cand_us, 0, sizeof p->cand_us);
  if (launch(ctx, lane, p, c, &p->cand[0]) != CUBLAS_STATUS_SUCCESS)
    return lt_refuse(ctx, &c->shape, "the heuristic's first candidate failed");
  if (lt_tune_reference_keep(ref[0], c, stream) != 0) return -1;
  if (exact &&
      (launch(ctx, lane, p, &pr->call, &p->cand[0]) != CUBLAS_STATUS_SUCCESS ||
       lt_tune_reference_keep(ref[1], &pr->call, stream) != 0))
    return lt_refuse(ctx, &c->shape, "the probe of the first candidate failed");
  p->cand_ok[0] = 1;
  if (time_alone(ctx, lane, p, c, 0, ev, &p->cand_us[0]) != 0) return -1;
  int accepted = 1;
  for (int i = 1; i < p->cand_count; i++) {
    int same = 0;
    if (candidate_same(ctx, lane, p, c, i, ref[0], &same) != 0) return -1;
    if (same && exact &&
        candidate_same(ctx, lane, p, &pr->call, i, ref[1], &same) != 0)
      return -1;
    if (!same) continue;
    if (time_alone(ctx, lane, p, c, i, ev, &p->cand_us[i]) != 0) return -1;
    p->cand_ok[i] = 1;
    accepted++;
  }
  p->info.accepted = accepted;
  p->info.first_us = p->cand_us[0];
  p->info.checked = 1;
  return 0;
}

int lt_autotune_check(gpu_context *ctx, int lane, lt_plan *p,
                      const lt_matmul_call *call) {
  cudaStream_t stream = gpu_lane_stream(ctx, lane);
  enum cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  CUDA_CHECK(cudaStreamIsCapturing(stream, &capture));
  if (capture != cudaStreamCaptureStatusNone)
    return lt_refuse(ctx, &call->shape,
                     "a plan's candidates cannot be checked during graph "
                     "capture; run the step once before capturing it");
  lt_tune_reference *ref[2] = {NULL, NULL};
  probe pr = {0};
  cudaEvent_t ev[2] = {NULL, NULL};
  int status = lt_tune_reference_create(&ref[0], &call->shape) != 0 ||
                       lt_tune_reference_create(&ref[1], &call->shape) != 0 ||
                       probe_create(&pr, call, stream) != 0
                   ? lt_refuse(ctx, &call->shape,
                               "out of GPU memory for the candidates' check")
                   : 0;
  if (status == 0 && (cudaEventCreate(&ev[0]) != cudaSuccess ||
                      cudaEventCreate(&ev[1]) != cudaSuccess))
    status = lt_refuse(ctx, &call->shape, "could not create timing events");
  if (status == 0) status = check(ctx, lane, p, call, ref, &pr, ev);
  if (status == 0 && cudaStreamSynchronize(stream) != cudaSuccess)
    status = lt_refuse(ctx, &call->shape, "the candidates' check failed: %s",
                       cudaGetErrorString(cudaGetLastError()));
  if (ev[1]) cudaEventDestroy(ev[1]);
  if (ev[0]) cudaEventDestroy(ev[0]);
  probe_destroy(&pr);
  lt_tune_reference_destroy(ref[1]);
  lt_tune_reference_destroy(ref[0]);
  return status;
}

int lt_matmul_candidates(gpu_context *ctx, int lane, const lt_matmul_call *call,
                         lt_candidates *out) {
  memset(out, 0, sizeof *out);
  lt_plan *p = lt_plan_for(ctx, call);
  if (!p) return -1;
  if (lt_plan_list(ctx, p) != 0) return -1;
  if (!p->info.checked && lt_autotune_check(ctx, lane, p, call) != 0) return -1;
  out->count = p->cand_count;
  memcpy(out->ok, p->cand_ok, sizeof out->ok);
  memcpy(out->alone_us, p->cand_us, sizeof out->alone_us);
  return 0;
}
