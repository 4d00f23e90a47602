/* bench_profile.h: mnist_bench --profile-step: one fused and one unfused
 * step of each benchmark network, from the host, between
 * cudaProfilerStart and cudaProfilerStop (for Nsight Compute). */
#ifndef MNIST_EPILOGS_BENCH_PROFILE_H
#define MNIST_EPILOGS_BENCH_PROFILE_H

#include "data/mnist.h"
#include "gpu/gpu_context.h"
#include "layers/fp8.h"
#include "lt/lt_shape.h"

/* For each network (`only_network`: 0 every one, i + 1 bench_nets()[i]
 * alone), fused then unfused, in the context's precision (FP8: with recipe
 * `fp8`) and with `activation`: a warm-up epoch, then one profiled step.
 * Returns 0 or -1 (message on stderr). */
int bench_profile_steps(const mnist_dataset *data, gpu_context *ctx,
                        lt_activation activation, const fp8_recipe *fp8,
                        int only_network);

#endif
