#!/bin/bash
# Session 10, device call D (experiment, pack/exp10: an sm_90 build of 1f7a778 with pack/exp10.patch: the
# timed sample's steps from MNIST_EXP_STEPS, default 4, and the algorithm floor from MNIST_EXP_ALGO_FLOOR):
# does a longer timed sample make the step tuner's verdicts agree with the epochs?
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
E=pack/exp10/mnist_train
mkdir -p $OUT/d
common="--epochs 3 --tune-cache off --show-plans --tune-budget 3000"
mid="--hidden 1024,1024 --batch 256 --precision fp32 --mode auto"
for r in 1 2; do
  MNIST_EXP_STEPS=4 $E $mid $common > $OUT/d/mid-s4-$r.txt 2>&1
  MNIST_EXP_STEPS=32 $E $mid $common > $OUT/d/mid-s32-$r.txt 2>&1
  $E $mid --epochs 3 --autotune off > $OUT/d/mid-off-$r.txt 2>&1
  MNIST_EXP_STEPS=4 MNIST_EXP_ALGO_FLOOR=0.02 $E $common > $OUT/d/def-s4-f2-$r.txt 2>&1
  MNIST_EXP_STEPS=32 MNIST_EXP_ALGO_FLOOR=0.02 $E $common > $OUT/d/def-s32-f2-$r.txt 2>&1
  MNIST_EXP_STEPS=4 $E $common > $OUT/d/def-s4-f10-$r.txt 2>&1
  $E --epochs 3 --autotune off > $OUT/d/def-off-$r.txt 2>&1
done
for f in $OUT/d/*.txt; do
  echo "$(basename $f .txt): $(grep -o '[0-9.]* ms per epoch (median)' $f) $(grep -o 'fingerprint [0-9a-f]*' $f)"
  grep -E "the whole step|: wins" $f | cut -c1-150
done
cd $OUT && tar -czf D-logs.tgz d && rm -rf d
