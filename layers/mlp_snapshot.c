/* mlp_snapshot.c: see mlp_snapshot.h. */
#include "layers/mlp_snapshot.h"

#include <stdio.h>
#include <stdlib.h>

#include "gpu/gpu_check.h"
#include "layers/mlp_fp8.h"

enum { SNAPSHOT_REGIONS = 4 };

/* One device buffer of the network and its copy. */
typedef struct region {
  void *d_net;
  void *d_copy;
  size_t bytes;
} region;

struct mlp_snapshot {
  const mlp *net; /* the network it was made for */
  region region[SNAPSHOT_REGIONS];
  int count;
};

/* 0 when `net` is the snapshot's network, else -1 with a message. */
static int same_net(const mlp_snapshot *s, const mlp *net) {
  if (s->net == net) return 0;
  fprintf(stderr, "mlp_snapshot: expected the network the snapshot was made "
                  "for, found another\n");
  return -1;
}

/* The network's buffers a step changes (NULL ones left out). */
static int net_regions(const mlp *net, region *out) {
  size_t slab = net->layout.slab_floats;
  int count = 0;
  region r[SNAPSHOT_REGIONS] = {
      {net->d_params, NULL, slab * sizeof(float)},
      {net->d_params_copy, NULL, slab * lt_dtype_size(net->type)},
      {net->d_velocity, NULL, slab * sizeof(float)},
      {NULL, NULL, 0}};
  if (net->fp8_tensors) mlp_fp8_state(net, &r[3].d_net, &r[3].bytes);
  for (int i = 0; i < SNAPSHOT_REGIONS; i++)
    if (r[i].d_net && r[i].bytes) out[count++] = r[i];
  return count;
}

int mlp_snapshot_create(mlp_snapshot **out, const mlp *net) {
  *out = calloc(1, sizeof **out);
  if (!*out) {
    fprintf(stderr, "mlp_snapshot: out of host memory\n");
    return -1;
  }
  mlp_snapshot *s = *out;
  s->net = net;
  s->count = net_regions(net, s->region);
  for (int i = 0; i < s->count; i++)
    if (cudaMalloc(&s->region[i].d_copy, s->region[i].bytes) != cudaSuccess) {
      cudaGetLastError();
      fprintf(stderr,
              "mlp_snapshot: out of GPU memory for a copy of the network "
              "(%zu bytes)\n",
              s->region[i].bytes);
      mlp_snapshot_destroy(s);
      *out = NULL;
      return -1;
    }
  return 0;
}

void mlp_snapshot_destroy(mlp_snapshot *s) {
  if (!s) return;
  for (int i = 0; i < s->count; i++)
    cudaFree(s->region[i].d_copy);
  free(s);
}

int mlp_snapshot_take(mlp_snapshot *s, const mlp *net, cudaStream_t stream) {
  if (same_net(s, net) != 0) return -1;
  for (int i = 0; i < s->count; i++)
    CUDA_CHECK(cudaMemcpyAsync(s->region[i].d_copy, s->region[i].d_net,
                               s->region[i].bytes, cudaMemcpyDeviceToDevice,
                               stream));
  return 0;
}

int mlp_snapshot_restore(const mlp_snapshot *s, mlp *net, cudaStream_t stream) {
  if (same_net(s, net) != 0) return -1;
  for (int i = 0; i < s->count; i++)
    CUDA_CHECK(cudaMemcpyAsync(s->region[i].d_net, s->region[i].d_copy,
                               s->region[i].bytes, cudaMemcpyDeviceToDevice,
                               stream));
  return 0;
}
