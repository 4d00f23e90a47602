#!/bin/bash
# Session 2, device call C: the slowdown's cause (the heuristic's list asked for under off; eager loading);
# our rows and PyTorch's (graph, compiled) at 784-100-10 fp32/bf16 and 784-1024-1024-10 bf16, in one call.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
B=build/mnist_train; D=pack/mnist_train_diag2
timeout 30 $B --epochs 1 --tune-cache-dir /tmp/tcab > /dev/null 2>&1
timeout 150 scripts/ab_tune.sh --rounds 3 --log $OUT/ab -- off="$B --autotune off" cached="$B --tune-cache-dir /tmp/tcab" \
  off-list="env MNIST_DIAG_LIST=1 $D --autotune off" off-eager="env CUDA_MODULE_LOADING=EAGER $B --autotune off" \
  cached-eager="env CUDA_MODULE_LOADING=EAGER $B --tune-cache-dir /tmp/tcab" 2>&1 | tee $OUT/ab.txt
export MNIST_TUNE_CACHE_DIR=/tmp/tcb
for a in "--network seed --precision fp32" "--network seed --precision bf16" "--network mid --precision bf16"; do
  timeout 120 build/mnist_bench $a --activation relu --no-layers --repeats 5 2>&1 | grep -E "^784|skipping"
done | tee $OUT/ours.txt | cut -c1-112
P="python3 scripts/bench_pytorch.py --activations relu --repeats 3"
timeout 150 $P --networks 100:256 --precisions fp32,bf16 --variants graph,compiled --json $OUT/torch_seed.json 2>&1 | grep -E "pytorch|rror" | cut -c1-160
timeout 90 $P --networks 1024-1024:256 --precisions bf16 --variants graph,compiled --json $OUT/torch_mid.json 2>&1 | grep -E "pytorch|rror" | cut -c1-160
cd $OUT && tar -czf logsC.tgz ab && rm -rf ab
