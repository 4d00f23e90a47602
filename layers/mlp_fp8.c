/* mlp_fp8.c: the FP8 step's memory and state (mlp_fp8.h): buffers, the reset
 * after the parameters change, views tests read. Hooks: mlp_fp8_pass.c. */
#include "layers/mlp_fp8.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "gpu/gpu_check.h"

/* cuBLASLt's scale and amax pointers must be 16-byte aligned (fp8_cast.h). */
_Static_assert(offsetof(fp8_meta, scale) == 16 &&
                   offsetof(fp8_meta, amax) == 32 && sizeof(fp8_meta) % 16 == 0,
               "fp8_meta: scale_inv, scale and amax on 16-byte boundaries");

/* Bytes rounded up to 256 (every buffer starts 256-aligned). */
static size_t aligned(size_t bytes) {
  return (bytes + 255) / 256 * 256;
}

size_t mlp_fp8_batch_x8t(int in, int n) {
  return MLP_FP8_BATCH_X8 + aligned((size_t)lt_ld_fp8(in) * (size_t)n);
}

size_t mlp_fp8_batch_bytes(int in, int n) {
  return mlp_fp8_batch_x8t(in, n) + aligned((size_t)lt_ld_fp8(n) * (size_t)in);
}

/* Lays the buffers out from `base` (NULL: only counts), what a step
 * changes first (*state_bytes); returns the bytes. */
static size_t lay_out(mlp *net, char *base, size_t *state_bytes) {
  mlp_fp8_tensors *f = net->fp8_tensors;
  int depth = net->layout.depth, N = net->max_batch;
  int training = !net->inference_only;
  size_t at = 0;
#define TAKE(ptr, bytes)                                                       \
  do {                                                                         \
    if (base) ptr = (void *)(base + at);                                       \
    at += aligned(bytes);                                                      \
  } while (0)
  TAKE(f->d_meta, sizeof(fp8_meta) * 4 * depth);
  if (base) f->d_eval_meta = f->d_meta + 3 * depth;
  TAKE(f->d_step, 2 * sizeof(uint32_t));
  if (base) f->d_finished = f->d_step + 1;
  for (int l = 0; l < depth; l++) {
    size_t in = (size_t)net->layers[l].in, out = (size_t)net->layers[l].out;
    TAKE(f->w8[l], (size_t)lt_ld_fp8((int)in) * out);
    if (l > 0) TAKE(f->w8t[l], (size_t)lt_ld_fp8((int)out) * in);
  }
  *state_bytes = at;
  for (int l = 0; l < depth; l++) {
    size_t in = (size_t)net->layers[l].in, out = (size_t)net->layers[l].out;
    size_t ld_n = (size_t)lt_ld_fp8(N);
    if (l > 0) TAKE(f->x8[l], (size_t)lt_ld_fp8((int)in) * N);
    if (!training) continue;
    if (l > 0) {
      TAKE(f->x8t[l], ld_n * in);
      TAKE(f->dz8[l], (size_t)lt_ld_fp8((int)out) * N);
    }
    TAKE(f->dz8t[l], ld_n * out);
    TAKE(f->partials[l], sizeof(float) * (size_t)fp8_cast_tiles(N) * out);
  }
#undef TAKE
  return at;
}

/* 0 when all widths are multiples of 16 (cuBLASLt's FP8 m, k); else -1. */
static int check_widths(const mlp *net) {
  for (int l = 0; l <= net->layout.depth; l++) {
    if (net->layout.widths[l] % 16 == 0) continue;
    fprintf(stderr,
            "mlp: the FP8 step expects every width a multiple of 16 "
            "(cuBLASLt's FP8 GEMMs need m and k so: lt_shape_check), found "
            "%d (width %d); hint: pad the units to 16 (mlp_options.pad_units "
            "with pad_multiple 16: --pad-to 16)\n",
            net->layout.widths[l], l);
    return -1;
  }
  return 0;
}

int mlp_fp8_create(mlp *net, const fp8_recipe *recipe) {
  if (net->type != LT_DTYPE_BF16) {
    fprintf(stderr, "mlp: the FP8 step extends a BF16 network, found %s\n",
            lt_dtype_name(net->type));
    return -1;
  }
  if (check_widths(net) != 0) return -1;
  mlp_fp8_tensors *f = calloc(1, sizeof *f);
  if (!f) {
    fprintf(stderr, "mlp: out of host memory\n");
    return -1;
  }
  net->fp8_tensors = f;
  f->recipe = *recipe;
  size_t bytes = lay_out(net, NULL, &f->state_bytes);
  if (cudaMalloc(&f->d_block, bytes) != cudaSuccess) {
    cudaGetLastError();
    fprintf(stderr, "mlp: out of GPU memory for the FP8 buffers (%zu bytes)\n",
            bytes);
    return -1;
  }
  lay_out(net, f->d_block, &f->state_bytes);
  CUDA_CHECK(cudaMemset(f->d_block, 0, bytes));
  CUDA_CHECK(cudaDeviceSynchronize());
  return 0;
}

void mlp_fp8_destroy(mlp *net) {
  if (!net || !net->fp8_tensors) return;
  cudaFree(net->fp8_tensors->d_block);
  free(net->fp8_tensors);
  net->fp8_tensors = NULL;
}

fp8_cast_args mlp_fp8_cast_of(const void *d_src, int rows, int n, uint8_t *out,
                              uint8_t *out_t, fp8_meta *meta,
                              const float *delayed_scale, lt_fp8 format) {
  return (fp8_cast_args){.src_type = LT_DTYPE_BF16,
                         .d_src = d_src,
                         .ld_src = lt_ld(rows),
                         .rows = rows,
                         .cols = n,
                         .d_out = out,
                         .ld_out = lt_ld_fp8(rows),
                         .d_out_t = out_t,
                         .ld_out_t = lt_ld_fp8(n),
                         .d_scale = delayed_scale,
                         .d_meta = meta,
                         .format = format};
}

int mlp_fp8_reset(mlp *net, gpu_context *ctx) {
  mlp_fp8_tensors *f = net->fp8_tensors;
  /* Every state zeroed, scales 1, the step 0. */
  fp8_meta h[4 * MLP_MAX_LAYERS];
  size_t count = 4 * (size_t)net->layout.depth;
  for (size_t i = 0; i < count; i++)
    h[i] = (fp8_meta){.scale_inv = 1.0f, .scale = 1.0f};
  /* On the stream (after its work), waited for before h goes. */
  CUDA_CHECK(cudaMemcpyAsync(f->d_meta, h, count * sizeof *h,
                             cudaMemcpyHostToDevice, ctx->stream));
  CUDA_CHECK(cudaStreamSynchronize(ctx->stream));
  CUDA_CHECK(cudaMemsetAsync(f->d_step, 0, 2 * sizeof(uint32_t), ctx->stream));
  for (int l = 0; l < net->layout.depth; l++) {
    const linear_layer *layer = &net->layers[l];
    fp8_cast_args a = mlp_fp8_cast_of(
        net->d_params + net->layout.w_offset[l], layer->in, layer->out,
        f->w8[l], f->w8t[l],
        f->d_meta + MLP_FP8_WEIGHTS * net->layout.depth + l, NULL, LT_FP8_E4M3);
    a.src_type = LT_DTYPE_F32;
    if (fp8_cast(&a, &ctx->early, ctx->stream) != 0) return -1;
  }
  f->calibrated = 0;
  return 0;
}

int mlp_fp8_state(const mlp *net, void **d_state, size_t *bytes) {
  if (!net->fp8_tensors) return -1;
  *d_state = net->fp8_tensors->d_block;
  *bytes = net->fp8_tensors->state_bytes;
  return 0;
}

int mlp_fp8_read_meta(const mlp *net, gpu_context *ctx, fp8_meta *meta) {
  CUDA_CHECK(cudaStreamSynchronize(ctx->stream));
  CUDA_CHECK(cudaMemcpy(meta, net->fp8_tensors->d_meta,
                        sizeof(fp8_meta) * 3 * (size_t)net->layout.depth,
                        cudaMemcpyDeviceToHost));
  return 0;
}
