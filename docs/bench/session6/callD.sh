#!/bin/bash
# Session 6, device call D (75725da + mnist_bench --show-plans, uncommitted): why 784-100-10 FP32 unfused took
# 14.67 ms per epoch in call B's run 2 (10.33 and 10.35 in runs 1 and 3; mnist_train's five first runs in call C:
# 10.40, one fingerprint): mnist_bench's rows of that network with each row's step tuner report, first runs
# (--tune-cache off), eight processes of the FP32 ReLU rows and two of every row of the network; the GPU tests of
# mnist_bench.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p $OUT/d
(cd build && timeout 120 ctest -L gpu -R "bench" --output-on-failure) > $OUT/d/ctest.txt 2>&1; grep -E "tests passed|Failed" $OUT/d/ctest.txt
B="build/mnist_bench --network seed --no-layers --repeats 3 --tune-cache off --show-plans"
for r in 1 2 3 4 5 6 7 8; do
  timeout 40 $B --precision fp32 --activation relu > $OUT/d/fp32_$r.txt 2>&1
  echo "fp32 relu $r: $(grep -E '^784-100-10 +256  unfused +fp32  on' $OUT/d/fp32_$r.txt | cut -c1-90)"
done
for r in 1 2; do
  timeout 90 $B > $OUT/d/all_$r.txt 2>&1
  echo "all rows $r: $(grep -E '^784-100-10 +256  unfused +fp32  on' $OUT/d/all_$r.txt | cut -c1-90)"
done
cd $OUT && tar -czf D-logs.tgz d && rm -rf d
