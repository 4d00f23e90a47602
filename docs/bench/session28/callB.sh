#!/bin/bash
# Session 28, device call B: the GPU suite; the default network's whole runs, every mode under exact (tuned afresh
# in each process) and off, 5 rounds alternated (scripts/ab_tune.sh); every 784-1024-1024-10 and 784-100-10 row
# under --against-off with --show-plans.
source docs/bench/session27/common.sh
call_start B
tar -xJf pack/build.tar.xz
S=$SECONDS
(cd build && timeout 230 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > /tmp/b/suite.txt 2>&1
echo "suite in $((SECONDS - S)) s:"
grep -E "tests passed|\*\*\*|Assert|\.c:[0-9]+:|Failed" /tmp/b/suite.txt | cut -c1-180 | tail -8
S=$SECONDS
T="build/mnist_train --data-dir data/mnist --epochs 5 --tune-cache off"
timeout 150 scripts/ab_tune.sh --rounds 5 --log /tmp/b/ab -- \
  "off-fused=$T --autotune off --mode fused" "exact-fused=$T --mode fused" \
  "off-unfused=$T --autotune off --mode unfused" "exact-unfused=$T --mode unfused" \
  "off-auto=$T --autotune off --mode auto" "exact-auto=$T --mode auto" > /tmp/b/ab.txt 2>&1
echo "ab_tune: rc $? in $((SECONDS - S)) s"; cat /tmp/b/ab.txt | tail -12
for net in mid seed; do
  S=$SECONDS
  MNIST_TUNE_CACHE_DIR=/tmp/tc-b-$net timeout 130 build/mnist_bench --data-dir data/mnist --no-layers --show-plans \
    --against-off --network $net --json /tmp/b/$net.json > /tmp/b/$net.txt 2>&1
  echo "bench $net: rc $? in $((SECONDS - S)) s"
  grep -E "^784-[0-9-]+ +[0-9]+ " /tmp/b/$net.txt | sed -E 's/ +/ /g' | awk '{print $3, $4}' > /tmp/b/h
  grep -E "^784-[0-9-]+ +[0-9]+ " /tmp/b/$net.txt | grep -oE "(([0-9.]+x (fused|unfused)'s speed|[0-9.]+x, [a-z+]+) +)?[0-9.]+x off's time.*" | paste -d' ' /tmp/b/h - | cut -c1-120
  grep -c "off's set -> tuned" /tmp/b/$net.txt
done
echo "end at $SECONDS s"
