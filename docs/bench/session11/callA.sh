#!/bin/bash
# Session 11, device call A: the build with the check in the run's context (floor 10 %): the GPU suite,
# test_step_tune twice; then pack/exp11 (the same code, sm_90, with MNIST_EXP_ALGO_FLOOR setting the algorithm
# floor and MNIST_EXP_NO_CHECK leaving the check out): does the check drop what the context apart chose wrongly
# (default network FP32, 2 % and 1 % floors) and keep what it chose rightly (784-4096-4096-10 fp8, 1 %)?
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p $OUT/a
(cd build && timeout 200 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > $OUT/a/ctest.txt 2>&1
grep -E "tests passed|\*\*\*|Assert|Failed" $OUT/a/ctest.txt | cut -c1-200 | tail -6
for i in 1 2; do
  (cd build && timeout 100 ctest -R "test_step_tune" --output-on-failure -V) > $OUT/a/step_tune-$i.txt 2>&1
  echo "step_tune $i: $(grep -E 'tests passed' $OUT/a/step_tune-$i.txt)"; grep -E "Assert|differ only|run's context" $OUT/a/step_tune-$i.txt | cut -c1-220 | head -5
done
E=pack/exp11/mnist_train
summ() { echo "$1: $(grep -o '[0-9.]* ms per epoch (median)' $2) $(grep -o 'test accuracy [0-9.]*%' $2) $(grep -o 'fingerprint [0-9a-f]*, chosen in [0-9.]* ms' $2)"; grep -E "run's context|: wins" $2 | cut -c1-150; }
D="--epochs 8 --tune-cache off --show-plans"
for r in 1 2; do
  for cfg in "off" "f2" "f2nc" "f1"; do
    f=$OUT/a/def-$cfg-$r.txt
    case $cfg in
      off) timeout 60 $E $D --autotune off > $f 2>&1 ;;
      f2) MNIST_EXP_ALGO_FLOOR=0.02 timeout 60 $E $D > $f 2>&1 ;;
      f2nc) MNIST_EXP_NO_CHECK=1 MNIST_EXP_ALGO_FLOOR=0.02 timeout 60 $E $D > $f 2>&1 ;;
      f1) MNIST_EXP_ALGO_FLOOR=0.01 timeout 60 $E $D > $f 2>&1 ;;
    esac
    summ def-$cfg-$r $f
  done
done
for m in unfused auto; do
  for cfg in off f1; do
    f=$OUT/a/$m-$cfg.txt
    if [ $cfg = off ]; then timeout 60 $E $D --mode $m --autotune off > $f 2>&1; else MNIST_EXP_ALGO_FLOOR=0.01 timeout 60 $E $D --mode $m > $f 2>&1; fi
    summ $m-$cfg $f
  done
done
B="--hidden 4096,4096 --batch 4096 --precision fp8 --epochs 8 --tune-cache off --show-plans"
for r in 1 2; do
  for cfg in off f1 f1nc; do
    f=$OUT/a/big-$cfg-$r.txt
    case $cfg in
      off) timeout 90 $E $B --autotune off > $f 2>&1 ;;
      f1) MNIST_EXP_ALGO_FLOOR=0.01 timeout 90 $E $B > $f 2>&1 ;;
      f1nc) MNIST_EXP_NO_CHECK=1 MNIST_EXP_ALGO_FLOOR=0.01 timeout 90 $E $B > $f 2>&1 ;;
    esac
    summ big-$cfg-$r $f
  done
done
cd $OUT && tar -czf A-logs.tgz a && rm -rf a
