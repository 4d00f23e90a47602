#!/bin/bash
# Session 11, device call B: the build with the check in a fresh context and the algorithm floor at 1 %
# (what ships, but the docs): the GPU suite, test_step_tune twice; the default network's three modes tuned
# (a first run, --tune-cache off) against --autotune off, two processes each, alternated; 784-4096-4096-10 fp8
# fused the same; then every mnist_bench row, per network a tuned process (--show-plans) then one --autotune off.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p $OUT/b
(cd build && timeout 200 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > $OUT/b/ctest.txt 2>&1
grep -E "tests passed|\*\*\*|Assert|Failed" $OUT/b/ctest.txt | cut -c1-200 | tail -6
for i in 1 2; do
  (cd build && timeout 100 ctest -R "test_step_tune" --output-on-failure -V) > $OUT/b/step_tune-$i.txt 2>&1
  echo "step_tune $i: $(grep -E 'tests passed' $OUT/b/step_tune-$i.txt)"; grep -E "Assert|differ only|fresh context" $OUT/b/step_tune-$i.txt | cut -c1-220 | head -6
done
M=build/mnist_train
summ() { echo "$1: $(grep -o '[0-9.]* ms per epoch (median)' $2) $(grep -o 'test accuracy [0-9.]*%' $2) $(grep -o '[0-9.]* s wall clock' $2) $(grep -o 'fingerprint [0-9a-f]*, chosen in [0-9.]* ms' $2)"; grep -E "fresh context|: wins" $2 | cut -c1-260; }
D="--epochs 8 --tune-cache off --show-plans"
for r in 1 2; do
  for m in fused unfused auto; do
    for cfg in new off; do
      f=$OUT/b/def-$m-$cfg-$r.txt
      if [ $cfg = off ]; then timeout 60 $M $D --mode $m --autotune off > $f 2>&1; else timeout 60 $M $D --mode $m > $f 2>&1; fi
      summ def-$m-$cfg-$r $f
    done
  done
done
B="--hidden 4096,4096 --batch 4096 --precision fp8 --epochs 8 --tune-cache off --show-plans"
for r in 1 2; do
  for cfg in new off; do
    f=$OUT/b/big-$cfg-$r.txt
    if [ $cfg = off ]; then timeout 90 $M $B --autotune off > $f 2>&1; else timeout 90 $M $B > $f 2>&1; fi
    summ big-$cfg-$r $f
  done
done
for net in seed mid big; do
  s=$(date +%s)
  timeout 130 build/mnist_bench --network $net --no-layers --tune-cache off --show-plans --json $OUT/b/new-$net.json > $OUT/b/new-$net.txt 2>&1; echo "new $net rc $? $(( $(date +%s) - s )) s"
  s=$(date +%s)
  timeout 110 build/mnist_bench --network $net --no-layers --autotune off --json $OUT/b/off-$net.json > $OUT/b/off-$net.txt 2>&1; echo "off $net rc $? $(( $(date +%s) - s )) s"
done
cd $OUT && tar -czf B-logs.tgz b && rm -rf b
