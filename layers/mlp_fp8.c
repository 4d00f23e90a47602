/* mlp_fp8.c: the FP8 step's memory and scaling state (mlp_fp8.h): buffers,
 * creation, the views tests and reports read. */
#include "layers/mlp_fp8.h"

#include <stdio.h>
#include <stdlib.h>

#include "gpu/gpu_check.h"
#include "layers/mlp_fp8_calls.h"

fp8_meta *mlp_fp8_meta(const mlp *net, int l, mlp_fp8_role role) {
  return net->fp8->d_meta + 3 * l + role;
}

void mlp_fp8_tensor_name(char *out, size_t size, int index) {
  static const char *const roles[] = {"W", "X", "dZ"};
  snprintf(out, size, "%s%d", roles[index % 3], index / 3 + 1);
}
/* Bytes rounded up to 256 (every buffer starts 256-aligned). */
static size_t aligned(size_t bytes) {
  return (bytes + 255) / 256 * 256;
}

/* Lays the buffers out from `base` (NULL: only counts); returns bytes. */
static size_t lay_out(mlp *net, char *base) {
  mlp_fp8 *f = net->fp8;
  int N = net->max_batch, training = !net->inference_only;
  size_t at = 0;
#define TAKE(ptr, type, bytes)                                                 \
  do {                                                                         \
    if (base) ptr = (type)(base + at);                                         \
    at += aligned(bytes);                                                      \
  } while (0)
  TAKE(f->d_meta, fp8_meta *, sizeof(fp8_meta) * 3 * net->layout.depth);
  TAKE(f->d_step, uint32_t *, sizeof(uint32_t));
  for (int l = 0; l < net->layout.depth; l++) {
    size_t in = (size_t)net->layers[l].in, out = (size_t)net->layers[l].out;
    size_t ld_in = (size_t)lt_ld_fp8((int)in), ld_n = (size_t)lt_ld_fp8(N);
    TAKE(f->w8[l], uint8_t *, ld_in * out);
    TAKE(f->x8[l], uint8_t *, ld_in * (size_t)N);
    if (!training) continue;
    if (l > 0) {
      TAKE(f->w8t[l], uint8_t *, (size_t)lt_ld_fp8((int)out) * in);
      TAKE(f->dz8[l], uint8_t *, (size_t)lt_ld_fp8((int)out) * (size_t)N);
    }
    TAKE(f->x8t[l], uint8_t *, ld_n * in);
    TAKE(f->dz8t[l], uint8_t *, ld_n * out);
    TAKE(f->partials[l], float *,
         sizeof(float) * (size_t)fp8_cast_tiles(N) * out);
  }
#undef TAKE
  return at;
}

int mlp_fp8_create(mlp *net, const gpu_fp8_recipe *recipe,
                   const sgd_slabs *slabs) {
  if (net->type != LT_DTYPE_BF16) {
    fprintf(stderr, "mlp: the FP8 step extends a BF16 network, found %s\n",
            lt_dtype_name(net->type));
    return -1;
  }
  mlp_fp8 *f = calloc(1, sizeof *f);
  if (!f) {
    fprintf(stderr, "mlp: out of host memory\n");
    return -1;
  }
  net->fp8 = f;
  f->recipe = *recipe;
  f->slabs = *slabs;
  /* Forward and data GEMMs take m and k from the widths (lt_shape_check's
   * FP8 rule); where one cannot be FP8 it reads the BF16 weights. */
  for (int l = 0; l < net->layout.depth; l++)
    if (net->layers[l].in % 16 || net->layers[l].out % 16) f->copy_weights = 1;
  f->grad_format = recipe->all_e4m3 ? FP8_FORMAT_E4M3 : FP8_FORMAT_E5M2;
  size_t bytes = lay_out(net, NULL);
  if (cudaMalloc(&f->d_block, bytes) != cudaSuccess) {
    cudaGetLastError();
    fprintf(stderr, "mlp: out of GPU memory for the FP8 buffers (%zu bytes)\n",
            bytes);
    return -1;
  }
  lay_out(net, f->d_block);
  CUDA_CHECK(cudaMemset(f->d_block, 0, bytes));
  /* Scale 1 until a cast sets one. */
  int count = 3 * net->layout.depth;
  fp8_meta *h = calloc((size_t)count, sizeof *h);
  if (!h) {
    fprintf(stderr, "mlp: out of host memory\n");
    return -1;
  }
  for (int i = 0; i < count; i++)
    h[i].scale = h[i].scale_inv = 1.0f;
  cudaError_t status = cudaMemcpy(f->d_meta, h, (size_t)count * sizeof *h,
                                  cudaMemcpyHostToDevice);
  free(h);
  CUDA_CHECK(status);
  return 0;
}

int mlp_fp8_state(const mlp *net, void **d_state, size_t *bytes) {
  if (!net->fp8) return -1;
  *d_state = net->fp8->d_block;
  *bytes = lay_out((mlp *)net, NULL);
  return 0;
}

void mlp_fp8_destroy(mlp *net) {
  if (!net || !net->fp8) return;
  cudaFree(net->fp8->d_block);
  free(net->fp8);
  net->fp8 = NULL;
}

int mlp_fp8_read_meta(const mlp *net, gpu_context *ctx, fp8_meta *meta) {
  CUDA_CHECK(cudaStreamSynchronize(ctx->stream));
  CUDA_CHECK(cudaMemcpy(meta, net->fp8->d_meta,
                        sizeof(fp8_meta) * 3 * (size_t)net->layout.depth,
                        cudaMemcpyDeviceToHost));
  return 0;
}

mlp_fp8_layer mlp_fp8_layer_view(const mlp *net, int l) {
  const mlp_fp8 *f = net->fp8;
  mlp_fp8_layer v = {f->w8[l],  f->w8t[l],  f->x8[l],      f->x8t[l],
                     f->dz8[l], f->dz8t[l], f->partials[l]};
  return v;
}

fp8_format mlp_fp8_gradient_format(const mlp *net) {
  return net->fp8->grad_format;
}
