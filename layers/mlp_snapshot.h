/* mlp_snapshot.h: a copy of everything a training step changes in a
 * network that the next step reads: the FP32 master parameters, their
 * 16-bit copy, the momentum, and the FP8 state (amax histories, scales,
 * step counter, FP8 weights: mlp_fp8_state). Activations, masks and
 * gradients are not kept: every step rewrites them before reading them.
 * The step tuner (train/step_tune.h) replays the step many times and puts
 * the network back with this, so tuning changes nothing but speed. */
#ifndef MNIST_EPILOGS_MLP_SNAPSHOT_H
#define MNIST_EPILOGS_MLP_SNAPSHOT_H

#include <cuda_runtime_api.h>

#include "layers/mlp.h"

typedef struct mlp_snapshot mlp_snapshot;

/* Room for a snapshot of `net` on the GPU. Returns 0, or -1 with a message
 * on stderr and *out NULL. */
int mlp_snapshot_create(mlp_snapshot **out, const mlp *net);
/* A no-op on NULL. */
void mlp_snapshot_destroy(mlp_snapshot *snapshot);

/* Copies the network's state in (take) or back out (restore), on
 * `stream`, device to device. Returns 0 or -1. */
int mlp_snapshot_take(mlp_snapshot *snapshot, const mlp *net,
                      cudaStream_t stream);
int mlp_snapshot_restore(const mlp_snapshot *snapshot, mlp *net,
                         cudaStream_t stream);

#endif
