#!/bin/bash
# Session 11, device call D: the build that ships (the algorithm floor back at 10 %; the check in a fresh context
# keeps a set only 3 us a step or more faster than the untuned step alone): the GPU suite, test_step_tune twice;
# the default network's three modes, a first run (own tuning cache) against --autotune off, two processes each,
# alternated, then from the cache; 784-4096-4096-10 fp8 fused tuned and off; mnist_bench's seed and mid rows tuned
# (--show-plans) then off.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p $OUT/d
(cd build && timeout 200 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > $OUT/d/ctest.txt 2>&1
grep -E "tests passed|\*\*\*|Assert|Failed" $OUT/d/ctest.txt | cut -c1-200 | tail -6
for i in 1 2; do
  (cd build && timeout 100 ctest -R "test_step_tune" --output-on-failure -V) > $OUT/d/step_tune-$i.txt 2>&1
  echo "step_tune $i: $(grep -E 'tests passed' $OUT/d/step_tune-$i.txt)"; grep -E "Assert|differ only|printed above" $OUT/d/step_tune-$i.txt | cut -c1-220 | head -4
done
M=build/mnist_train
summ() { echo "$1: $(grep -o '[0-9.]* ms per epoch (median)' $2) $(grep -o 'test accuracy [0-9.]*%' $2) $(grep -o '[0-9.]* s wall clock' $2) $(grep -o 'fingerprint [0-9a-f]*, chosen in [0-9.]* ms' $2)"; grep -E "fresh context" $2 | cut -c1-260; }
D="--epochs 8 --show-plans"
for r in 1 2; do
  for m in fused unfused auto; do
    for cfg in new off; do
      f=$OUT/d/def-$m-$cfg-$r.txt
      if [ $cfg = off ]; then timeout 60 $M $D --tune-cache off --mode $m --autotune off > $f 2>&1; else timeout 60 $M $D --tune-cache-dir /tmp/tc-$m-$r --mode $m > $f 2>&1; fi
      summ def-$m-$cfg-$r $f
    done
  done
done
for m in fused unfused auto; do timeout 60 $M $D --tune-cache-dir /tmp/tc-$m-1 --mode $m > $OUT/d/def-$m-cached.txt 2>&1; summ def-$m-cached $OUT/d/def-$m-cached.txt; done
B="--hidden 4096,4096 --batch 4096 --precision fp8 --epochs 8 --tune-cache off --show-plans"
for cfg in new off; do
  f=$OUT/d/big-$cfg.txt
  if [ $cfg = off ]; then timeout 90 $M $B --autotune off > $f 2>&1; else timeout 90 $M $B > $f 2>&1; fi
  summ big-$cfg $f
done
for net in seed mid; do
  for cfg in new off; do
    s=$(date +%s)
    if [ $cfg = off ]; then a="--autotune off"; else a="--tune-cache off --show-plans"; fi
    timeout 110 build/mnist_bench --network $net --no-layers $a --json $OUT/d/$cfg-$net.json > $OUT/d/$cfg-$net.txt 2>&1; echo "$cfg $net rc $? $(( $(date +%s) - s )) s"
  done
done
cd $OUT && tar -czf D-logs.tgz d && rm -rf d
