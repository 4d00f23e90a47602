/* lt_autotune.c: timing and comparing a plan's candidates (lt_autotune.h). */
#include "lt/lt_autotune.h"

#include <stdlib.h>
#include <string.h>

#include "gpu/gpu_check.h"
#include "gpu/sample_stats.h"
#include "lt/lt_refuse.h"

enum {
  LT_TIMED_RUNS = 5
}; /* timed launches per candidate; the median counts */
/* A later candidate must beat the kept one by this factor to replace it,
 * so near-ties go to the heuristic's order. */
#define LT_TIE_MARGIN 1.03f
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
  lt_comparison *d_compared; /* [3] */
  int bias_len;
  size_t aux_bytes;
};

static int reference_init(lt_tune_reference *r, const lt_shape *shape) {
  r->shape = *shape;
  r->bias_len = lt_bias_grad_length(shape);
  if (shape->epilogue == LT_EPILOGUE_RELU_AUX_BIAS ||
      shape->epilogue == LT_EPILOGUE_GELU_AUX_BIAS)
    r->aux_bytes = lt_call_aux_bytes(shape);
  size_t size = lt_dtype_size(shape->type);
  CUDA_CHECK(cudaMalloc(&r->d_ref, (size_t)shape->m * shape->n * size));
  CUDA_CHECK(cudaMalloc((void **)&r->d_compared, 3 * sizeof(lt_comparison)));
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
  cudaFree(r->d_ref);
  free(r);
}

int lt_tune_reference_keep(lt_tune_reference *r, const lt_matmul_call *c,
                           cudaStream_t stream) {
  const lt_shape *sh = &r->shape;
  size_t size = lt_dtype_size(sh->type);
  CUDA_CHECK(cudaMemcpy2DAsync(
      r->d_ref, (size_t)sh->m * size, c->d_d, (size_t)sh->ldd * size,
      (size_t)sh->m * size, (size_t)sh->n, cudaMemcpyDeviceToDevice, stream));
  if (r->bias_len)
    CUDA_CHECK(cudaMemcpyAsync(r->d_ref_bias, c->d_bias_grad,
                               (size_t)r->bias_len * size,
                               cudaMemcpyDeviceToDevice, stream));
  if (r->aux_bytes)
    CUDA_CHECK(cudaMemcpyAsync(r->d_ref_aux, c->d_aux, r->aux_bytes,
                               cudaMemcpyDeviceToDevice, stream));
  return 0;
}

int lt_tune_reference_matches(lt_tune_reference *r, const lt_matmul_call *c,
                              gpu_autotune autotune, int tf32,
                              cudaStream_t stream, int *same) {
  const lt_shape *sh = &r->shape;
  lt_comparison h[3];
  memset(h, 0, sizeof h);
  CUDA_CHECK(cudaMemsetAsync(r->d_compared, 0, sizeof h, stream));
  if (lt_compare_values(&r->d_compared[0], sh->type, c->d_d, sh->ldd, r->d_ref,
                        sh->m, sh->m, sh->n, stream) != 0 ||
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
                         r->d_ref_aux, sh->aux_ld, sh->m, sh->n, stream) != 0))
    return -1;
  CUDA_CHECK(cudaMemcpyAsync(h, r->d_compared, sizeof h, cudaMemcpyDeviceToHost,
                             stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  *same = 1;
  for (int i = 0; i < 3; i++)
    *same = *same && lt_autotune_accepts(autotune, sh->type, tf32, &h[i]);
  return 0;
}

/* Median of LT_TIMED_RUNS launches of one candidate, in microseconds. */
static int time_candidate(gpu_context *ctx, int lane, const lt_plan *p,
                          const lt_matmul_call *c,
                          const cublasLtMatmulAlgo_t *algo, cudaEvent_t *ev,
                          float *us) {
  cudaStream_t stream = gpu_lane_stream(ctx, lane);
  float times[LT_TIMED_RUNS];
  for (int r = 0; r < LT_TIMED_RUNS; r++) {
    CUDA_CHECK(cudaEventRecord(ev[0], stream));
    CUBLAS_CHECK(lt_plan_launch(ctx, lane, p, c, algo));
    CUDA_CHECK(cudaEventRecord(ev[1], stream));
    CUDA_CHECK(cudaEventSynchronize(ev[1]));
    CUDA_CHECK(cudaEventElapsedTime(&times[r], ev[0], ev[1]));
  }
  float median_ms = 0.0f;
  sample_stats(times, LT_TIMED_RUNS, &median_ms, NULL, NULL);
  *us = median_ms * 1000.0f;
  return 0;
}

/* Runs every candidate; keeps the fastest whose outputs match the first
 * working candidate's. A candidate that fails to launch is skipped. */
static int tune(gpu_context *ctx, int lane, lt_plan *p, const lt_matmul_call *c,
                const cublasLtMatmulHeuristicResult_t *results, int count,
                lt_tune_reference *reference, cudaEvent_t *ev) {
  cudaStream_t stream = gpu_lane_stream(ctx, lane);
  int best = -1, ran = 0;
  float best_us = 0.0f;
  for (int i = 0; i < count; i++) {
    if (lt_plan_launch(ctx, lane, p, c, &results[i].algo) !=
        CUBLAS_STATUS_SUCCESS)
      continue;
    if (best < 0) {
      if (lt_tune_reference_keep(reference, c, stream) != 0) return -1;
    } else {
      int same = 0;
      if (lt_tune_reference_matches(reference, c, ctx->options.autotune,
                                    p->info.tf32, stream, &same) != 0)
        return -1;
      if (!same) continue;
    }
    float us = 0.0f;
    if (time_candidate(ctx, lane, p, c, &results[i].algo, ev, &us) != 0)
      return -1;
    ran++;
    if (best < 0) p->info.first_us = us;
    if (best < 0 || us * LT_TIE_MARGIN < best_us) {
      best = i;
      best_us = us;
    }
  }
  if (best < 0) return lt_refuse(ctx, &c->shape, "no heuristic candidate ran");
  p->algo = results[best].algo;
  p->info.matched = ran;
  p->info.chosen = best;
  p->info.chosen_us = best_us;
  return 0;
}

int lt_autotune(gpu_context *ctx, int lane, lt_plan *p,
                const lt_matmul_call *call,
                const cublasLtMatmulHeuristicResult_t *results, int count) {
  enum cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  CUDA_CHECK(cudaStreamIsCapturing(gpu_lane_stream(ctx, lane), &capture));
  if (capture != cudaStreamCaptureStatusNone)
    return lt_refuse(ctx, &call->shape,
                     "a plan cannot be autotuned during graph capture; run "
                     "the step once before capturing it");
  lt_tune_reference *reference = NULL;
  cudaEvent_t ev[2] = {NULL, NULL};
  int status = lt_tune_reference_create(&reference, &call->shape);
  if (status != 0)
    lt_refuse(ctx, &call->shape, "out of GPU memory for the autotune scratch");
  if (status == 0 && (cudaEventCreate(&ev[0]) != cudaSuccess ||
                      cudaEventCreate(&ev[1]) != cudaSuccess))
    status = lt_refuse(ctx, &call->shape, "could not create timing events");
  if (status == 0)
    status = tune(ctx, lane, p, call, results, count, reference, ev);
  if (ev[1]) cudaEventDestroy(ev[1]);
  if (ev[0]) cudaEventDestroy(ev[0]);
  lt_tune_reference_destroy(reference);
  return status;
}
