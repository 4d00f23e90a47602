/* bench_layers.c: fused against unfused, one layer at a time
 * (bench_layers.h). */
#include "bench_layers.h"

#include "../gpu/gpu_check.h"
#include "../gpu/lt_unfused.h"
#include "bench_timing.h"

typedef struct layer_size {
  int in, out, n;
} layer_size;

static const layer_size layer_sizes[] = {
    {784, 100, 256},    {784, 1024, 256},  {1024, 1024, 256},
    {1024, 1024, 4096}, {784, 4096, 4096}, {4096, 4096, 4096},
};

/* Buffers of one layer, random-filled by cuRAND (never zeros). */
typedef struct layer_buffers {
  float *d_w, *d_x, *d_b, *d_y, *d_dz, *d_dx, *d_db;
  uint8_t *d_mask_out, *d_mask_in;
} layer_buffers;

static int layer_alloc(gpu_context *ctx, layer_buffers *b,
                       const layer_size *s) {
  /* Leading dimensions as the shape builders make them (lt_ld). */
  size_t in = (size_t)lt_ld(s->in), out = (size_t)lt_ld(s->out),
         n = (size_t)s->n;
  float **f[7] = {&b->d_w,  &b->d_x,  &b->d_b, &b->d_y,
                  &b->d_dz, &b->d_dx, &b->d_db};
  size_t counts[7] = {in * out, in * n, out, out * n, out * n, in * n, in};
  for (int i = 0; i < 7; i++) {
    CUDA_CHECK(cudaMalloc((void **)f[i], (counts[i] + 1) * sizeof(float)));
    CURAND_CHECK(curandGenerateNormal(ctx->rng, *f[i],
                                      counts[i] + (counts[i] & 1), 0.0f, 1.0f));
  }
  CUDA_CHECK(cudaMalloc((void **)&b->d_mask_out, lt_aux_bytes(s->out, s->n)));
  CUDA_CHECK(cudaMalloc((void **)&b->d_mask_in, lt_aux_bytes(s->in, s->n)));
  CUDA_CHECK(cudaMemsetAsync(b->d_mask_in, 0x5A, lt_aux_bytes(s->in, s->n),
                             ctx->stream));
  return 0;
}

static void layer_free(gpu_context *ctx, layer_buffers *b) {
  cudaStreamSynchronize(ctx->stream);
  float *f[7] = {b->d_w, b->d_x, b->d_b, b->d_y, b->d_dz, b->d_dx, b->d_db};
  for (int i = 0; i < 7; i++)
    cudaFree(f[i]);
  cudaFree(b->d_mask_out);
  cudaFree(b->d_mask_in);
}

/* Times one pass: the plain matmul, the fused call, the unfused twin. */
static int time_pass(gpu_context *ctx, const lt_matmul_call *call,
                     float us[3]) {
  lt_matmul_call plain = {.shape = call->shape,
                          .d_a = call->d_a,
                          .d_b = call->d_b,
                          .d_d = call->d_d};
  plain.shape.epilogue = LT_EPILOGUE_DEFAULT;
  plain.shape.aux_ld = 0;
  if (bench_time_op(ctx, lt_matmul, &plain, &us[0]) != 0 ||
      bench_time_op(ctx, lt_matmul, call, &us[1]) != 0 ||
      bench_time_op(ctx, lt_matmul_unfused, call, &us[2]) != 0)
    return -1;
  return 0;
}

static int bench_size(FILE *json, gpu_context *ctx, const layer_size *s,
                      const layer_buffers *b, int *first) {
  /* Forward: Y (out, n) = Wt^T X + b, ReLU, mask. Backward data:
   * dX (in, n) = Wt dZ masked by the layer below's bits, its db. */
  lt_matmul_call forward = {.shape = lt_shape_forward(s->in, s->out, s->n, 1),
                            .d_a = b->d_w,
                            .d_b = b->d_x,
                            .d_d = b->d_y,
                            .d_bias = b->d_b,
                            .d_aux = b->d_mask_out};
  lt_matmul_call backward = {.shape =
                                 lt_shape_backward_data(s->in, s->out, s->n),
                             .d_a = b->d_w,
                             .d_b = b->d_dz,
                             .d_d = b->d_dx,
                             .d_bias_grad = b->d_db,
                             .d_aux = b->d_mask_in};
  const lt_matmul_call *calls[2] = {&forward, &backward};
  const char *pass[2] = {"forward", "backward"};
  for (int p = 0; p < 2; p++) {
    float us[3];
    if (time_pass(ctx, calls[p], us) != 0) return -1;
    char label[64];
    snprintf(label, sizeof label, "%d->%d, %d", s->in, s->out, s->n);
    printf("%-22s %-9s %10.1f %10.1f %10.1f %8.2fx\n", label, pass[p], us[0],
           us[1], us[2], us[2] / us[1]);
    if (json)
      fprintf(json,
              "%s    {\"in\": %d, \"out\": %d, \"batch\": %d, \"pass\": "
              "\"%s\", \"matmul_us\": %.3f, \"fused_us\": %.3f, "
              "\"unfused_us\": %.3f, \"speedup\": %.4f}",
              *first ? "" : ",\n", s->in, s->out, s->n, pass[p], us[0], us[1],
              us[2], us[2] / us[1]);
    *first = 0;
  }
  return 0;
}

int bench_layers(FILE *json, gpu_context *ctx, int *first) {
  printf("\nsingle layers, FP32, median us per call from CUDA-graph "
         "replays\n");
  printf("%-22s %-9s %10s %10s %10s %9s\n", "in->out, batch", "pass", "matmul",
         "fused", "unfused", "speedup");
  for (size_t i = 0; i < sizeof layer_sizes / sizeof layer_sizes[0]; i++) {
    layer_buffers b = {0};
    int status = layer_alloc(ctx, &b, &layer_sizes[i]);
    if (status == 0) status = bench_size(json, ctx, &layer_sizes[i], &b, first);
    layer_free(ctx, &b);
    if (status != 0) return -1;
  }
  return 0;
}
