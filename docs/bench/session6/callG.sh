#!/bin/bash
# Session 6, device call G (f9311ad, the final code): the GPU tests of mnist_bench and README's run, and
# mnist_bench --show-plans's labels on the GPU (784-100-10 BF16 ReLU rows, one timed epoch).
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
(cd build && timeout 120 ctest -L gpu -R "bench|readme" --output-on-failure) > $OUT/G-ctest.txt 2>&1
grep -E "tests passed|Failed|Test #" $OUT/G-ctest.txt | cut -c1-100
timeout 60 build/mnist_bench --network seed --precision bf16 --activation relu --no-layers --repeats 1 --tune-cache off --show-plans > $OUT/G-seed_bf16_plans.txt 2>&1
echo "rc $?"; grep -E "^784-100-10 .*(:|on )|fingerprint" $OUT/G-seed_bf16_plans.txt | cut -c1-90
