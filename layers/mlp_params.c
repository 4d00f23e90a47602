/* mlp_params.c: the network's parameters to and from the host (mlp.h:
 * mlp_set_params, mlp_get_params), for checkpoints and tests. */
#include <stdio.h>
#include <stdlib.h>

#include "gpu/gpu_check.h"
#include "layers/mlp.h"
#include "layers/mlp_fp8.h"
#include "layers/sgd.h"

int mlp_set_params(mlp *net, gpu_context *ctx, const float *h_slab) {
  size_t bytes = net->layout.slab_floats * sizeof(float);
  cudaStream_t stream = ctx->stream;
  CUDA_CHECK(cudaMemcpyAsync(net->d_params, h_slab, bytes,
                             cudaMemcpyHostToDevice, stream));
  if (net->d_velocity)
    CUDA_CHECK(cudaMemsetAsync(net->d_velocity, 0, bytes, stream));
  sgd_slabs slabs = mlp_sgd_slabs(net);
  if (sgd_write_copy(&slabs, stream) != 0 ||
      (net->fp8_tensors && mlp_fp8_reset(net, ctx) != 0))
    return -1;
  CUDA_CHECK(cudaStreamSynchronize(stream));
  return 0;
}

int mlp_set_params_from(mlp *net, gpu_context *ctx, const mlp_layout *layout,
                        const float *h_slab) {
  float *slab = calloc(net->layout.slab_floats, sizeof(float));
  if (!slab) {
    fprintf(stderr, "mlp: out of host memory for the parameters\n");
    return -1;
  }
  mlp_layout_copy_params(&net->layout, slab, layout, h_slab);
  int status = mlp_set_params(net, ctx, slab);
  free(slab);
  return status;
}

int mlp_get_params(const mlp *net, gpu_context *ctx, float *h_slab) {
  CUDA_CHECK(cudaStreamSynchronize(ctx->stream));
  CUDA_CHECK(cudaMemcpy(h_slab, net->d_params,
                        net->layout.slab_floats * sizeof(float),
                        cudaMemcpyDeviceToHost));
  return 0;
}
