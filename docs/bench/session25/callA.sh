#!/bin/bash
# Session 25, device call A: the GPU suite (with test_bench_against_off), then mnist_bench --against-off over
# 784-100-10 and 784-1024-1024-10: every row against its --autotune off twin in the same process (bench_off.h),
# a tuning cache folder of the call's own (each row tunes afresh).
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p /tmp/a
save() { tar -czf $OUT/A-logs.tgz -C /tmp a; }
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
S=$SECONDS
(cd build && timeout 200 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > /tmp/a/suite.txt 2>&1
(cd build && timeout 90 ctest -R "test_step_tune" --output-on-failure) >> /tmp/a/suite.txt 2>&1
echo "suite in $((SECONDS - S)) s:"
grep -E "tests passed|\*\*\*|Assert|\.c:[0-9]+:|Failed" /tmp/a/suite.txt | cut -c1-180 | tail -8
save
for net in seed mid; do
  S=$SECONDS
  MNIST_TUNE_CACHE_DIR=/tmp/tc-a timeout 250 build/mnist_bench --data-dir data/mnist --network $net --no-layers \
    --show-plans --against-off --json /tmp/a/$net-r1.json > /tmp/a/$net-r1.txt 2>&1
  echo "bench $net --against-off: rc $? in $((SECONDS - S)) s"
  grep -E "^784-" /tmp/a/$net-r1.txt | sed -E 's/ +/ /g' | awk '{print $1, $3, $4, $5, $6, $(NF-3), $(NF-2), $(NF-1), $NF}'
  save
done
echo "end at $SECONDS s"
