#!/bin/bash
# Session 12, device call A: the GPU suite and test_step_tune on HEAD (6d8426a: 3e18da2, efad270 and 6d8426a never
# ran on a GPU); the big FP8 network's first run with --show-plans against --autotune off; ncu of one whole FP8
# epoch of 784-4096-4096-10 (every kernel's time, to set the epoch against the sum of its kernels).
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p $OUT/a
(cd build && timeout 200 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > $OUT/a/ctest.txt 2>&1
grep -E "tests passed|\*\*\*|Assert|Failed" $OUT/a/ctest.txt | cut -c1-200 | tail -6
(cd build && timeout 100 ctest -R "test_step_tune" --output-on-failure -V) > $OUT/a/step_tune.txt 2>&1
echo "step_tune: $(grep -E 'tests passed' $OUT/a/step_tune.txt)"
M=build/mnist_train
B="--hidden 4096,4096 --batch 4096 --precision fp8 --epochs 8 --tune-cache off --show-plans"
for r in 1 2; do for cfg in new off; do
  f=$OUT/a/big-$cfg-$r.txt
  if [ $cfg = off ]; then timeout 90 $M $B --autotune off > $f 2>&1; else timeout 90 $M $B > $f 2>&1; fi
  echo "big-$cfg-$r: $(grep -o '[0-9.]* ms per epoch (median)' $f) $(grep -o '[0-9.]* s wall clock' $f)"
done; done
timeout 200 ncu --clock-control none --csv --page raw --print-units base --metrics gpu__time_duration.sum \
  $M --hidden 4096,4096 --batch 4096 --precision fp8 --epochs 1 --autotune off --tune-cache off > $OUT/a/ncu_epoch.csv 2> $OUT/a/ncu_epoch.err
echo "ncu rc=$? $(wc -l < $OUT/a/ncu_epoch.csv) lines"
cd $OUT && tar -czf A-logs.tgz a && rm -rf a
