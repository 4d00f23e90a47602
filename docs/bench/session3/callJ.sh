#!/bin/bash
# Session 3, device call J: the copy in the context apart with only the data it replays; where the first run's wall clock goes.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
B=build/mnist_train; A=pack/base/mnist_train
for i in 1 2; do $B --epochs 1 --show-plans --tune-cache off 2>&1 | grep "step tuner:" | cut -c1-200; done | tee $OUT/plans_first.txt
$B --epochs 1 --show-plans --tune-cache off --mode auto 2>&1 | grep "step tuner:" | cut -c1-200 | tee -a $OUT/plans_first.txt
timeout 30 $B --epochs 1 --tune-cache-dir /tmp/tc-fused > /dev/null 2>&1
timeout 120 scripts/ab_tune.sh --rounds 5 --log $OUT/ab -- off="$B --autotune off" first="$B --tune-cache off" here="$B --tune-cache off --tune-here" \
  cached="$B --tune-cache-dir /tmp/tc-fused" a72="$A" 2>&1 | tee $OUT/ab.txt
for i in 1 2 3; do /usr/bin/time -f "%e s %U user %S sys" $B --epochs 1 --tune-cache off --quiet 2>&1 | tail -2; done
cd $OUT && tar -czf logsJ.tgz ab && rm -rf ab
