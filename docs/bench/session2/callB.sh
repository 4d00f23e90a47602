#!/bin/bash
# Session 2, device call B: the deterministic tuner (floors, ties alone, auto from both tuned steps); the bound fix;
# the check's slowdown: which process state reproduces it (streams, allocations, a second capture).
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
B=build/mnist_train; D=pack/mnist_train_diag
(cd build && TEST_SEED=1967051452 timeout 90 ctest -R "test_lt_precision" --output-on-failure) > $OUT/ctestB.txt 2>&1
(cd build && timeout 90 ctest -R "test_step_tune" --output-on-failure) >> $OUT/ctestB.txt 2>&1
grep -E "tests passed|\*\*\*|Assert|fingerprint|behind|seed" $OUT/ctestB.txt | cut -c1-220 | tail -12
for i in 1 2 3 4; do timeout 30 $B --epochs 1 --show-plans --tune-cache off > $OUT/plans$i.txt 2>&1; grep -E "fingerprint|evidence" $OUT/plans$i.txt | cut -c1-150; done
timeout 30 $B --epochs 1 --tune-cache-dir /tmp/tcab > /dev/null 2>&1
timeout 200 scripts/ab_tune.sh --rounds 3 --log $OUT/ab -- off="$B --autotune off" first="$B --tune-cache off" \
  cached="$B --tune-cache-dir /tmp/tcab" chk="$B --tune-cache off --tune-budget 1" \
  off-s4="env MNIST_DIAG_STREAMS=4 $D --autotune off" off-s8="env MNIST_DIAG_STREAMS=8 $D --autotune off" \
  off-churn="env MNIST_DIAG_CHURN=4 $D --autotune off" off-hold="env MNIST_DIAG_HOLD=64 $D --autotune off" \
  off-recap="env MNIST_DIAG_RECAPTURE=1 $D --autotune off" chk-recap="env MNIST_DIAG_RECAPTURE=1 $D --tune-cache off --tune-budget 1" \
  off-u="$B --mode unfused --autotune off" first-u="$B --mode unfused --tune-cache off" \
  off-a="$B --mode auto --autotune off" first-a="$B --mode auto --tune-cache off" 2>&1 | tee $OUT/ab.txt
export MNIST_TUNE_CACHE_DIR=/tmp/tcb
for t in "" "--autotune off"; do timeout 60 build/mnist_bench --network seed --precision fp32 --activation relu --no-layers --repeats 5 $t 2>&1 | grep -E "^784" | cut -c1-100; done | tee $OUT/seed.txt
cd $OUT && tar -czf logsB.tgz ab ctestB.txt plans*.txt && rm -rf ab plans*.txt
