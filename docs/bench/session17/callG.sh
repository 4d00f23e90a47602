#!/bin/bash
# Session 17, device call G: the FP8 cast's grid from the per-kernel cache (gpu_early_places: one occupancy query
# a kernel, not three runtime queries a launch): the GPU suite; the default network's fp8 run, with graphs and
# with --no-graphs (every step launched from the host); the big fp8 ReLU bench row.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p /tmp/g
save() { tar -czf $OUT/G-logs.tgz -C /tmp g; }
(cd build && timeout 150 ctest -L gpu -E test_step_tune -j4 --output-on-failure > /tmp/g/ctest.txt 2>&1; echo "suite rc $?"; grep -E "tests passed|Failed|\*\*\*" /tmp/g/ctest.txt | head)
for g in "" "--no-graphs"; do
  timeout 60 build/mnist_train --precision fp8 --epochs 5 $g > /tmp/g/fp8-default$g.txt 2>&1; echo "fp8 $g: $(grep '^done' /tmp/g/fp8-default$g.txt)"
done
save
MNIST_TUNE_CACHE_DIR=/tmp/tcG timeout 120 build/mnist_bench --network big --precision fp8 --activation relu --no-layers --json /tmp/g/big.json > /tmp/g/big.txt 2>&1; echo "big rc $?"; grep -E "^784-4096" /tmp/g/big.txt | cut -c1-90
save
