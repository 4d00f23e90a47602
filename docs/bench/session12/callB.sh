#!/bin/bash
# Session 12, device call B: the working tree after 6d8426a (the gather a warp per sample in 16-byte vectors; the
# algorithm floor 10 % of the step, or 1 % and 6 us a step; cache key "rule 7") against HEAD's binary
# (pack/head.tar.xz, 6d8426a). The GPU suite and test_step_tune twice; the default run (5 epochs) in three modes,
# a first run with its own cache against --autotune off, two processes each, alternated; the big FP8 network's
# first run, new / HEAD / off, twice; every mnist_bench row tuned then off (issue 27's rows against off); the big
# fp8 row before and after torchao compiled and graphed.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p /tmp/head && tar -xJf pack/head.tar.xz -C /tmp/head
mkdir -p $OUT/b
(cd build && timeout 200 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > $OUT/b/ctest.txt 2>&1
grep -E "tests passed|\*\*\*|Assert|Failed" $OUT/b/ctest.txt | cut -c1-200 | tail -6
for i in 1 2; do
  (cd build && timeout 100 ctest -R "test_step_tune" --output-on-failure -V) > $OUT/b/step_tune-$i.txt 2>&1
  echo "step_tune $i: $(grep -E 'tests passed' $OUT/b/step_tune-$i.txt)"; grep -E "Assert|differ only|printed above" $OUT/b/step_tune-$i.txt | cut -c1-220 | head -4
done
summ() { echo "$1: $(grep -o '[0-9.]* ms per epoch (median)' $2) $(grep -o 'test accuracy [0-9.]*%' $2) $(grep -o '[0-9.]* s wall clock' $2) $(grep -o 'fingerprint [0-9a-f]*, chosen in [0-9.]* ms' $2)"; grep -E "fresh context|: wins" $2 | cut -c1-200 | head -4; }
for r in 1 2; do
  for m in fused unfused auto; do
    for cfg in new off head; do
      f=$OUT/b/def-$m-$cfg-$r.txt
      case $cfg in
        off) timeout 60 build/mnist_train --epochs 5 --show-plans --tune-cache off --mode $m --autotune off > $f 2>&1;;
        new) timeout 60 build/mnist_train --epochs 5 --show-plans --tune-cache-dir /tmp/tc-$m-$r --mode $m > $f 2>&1;;
        head) timeout 60 /tmp/head/build/mnist_train --epochs 5 --show-plans --tune-cache-dir /tmp/th-$m-$r --mode $m > $f 2>&1;;
      esac
      summ def-$m-$cfg-$r $f
    done
  done
done
B="--hidden 4096,4096 --batch 4096 --precision fp8 --epochs 8 --tune-cache off --show-plans"
for r in 1 2; do for cfg in new head off; do
  f=$OUT/b/big-$cfg-$r.txt
  case $cfg in
    off) timeout 90 build/mnist_train $B --autotune off > $f 2>&1;;
    new) timeout 90 build/mnist_train $B > $f 2>&1;;
    head) timeout 90 /tmp/head/build/mnist_train $B > $f 2>&1;;
  esac
  summ big-$cfg-$r $f
done; done
for net in seed mid big; do
  for cfg in new off; do
    s=$(date +%s)
    if [ $cfg = off ]; then a="--autotune off"; else a="--tune-cache off --show-plans"; fi
    timeout 120 build/mnist_bench --network $net --no-layers $a --json $OUT/b/$cfg-$net.json > $OUT/b/$cfg-$net.txt 2>&1; echo "$cfg $net rc $? $(( $(date +%s) - s )) s"
  done
done
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/torchao-*.whl && export PYTHONPATH=/tmp/site
F="--network big --precision fp8 --activation relu --no-layers --repeats 5"
MNIST_TUNE_CACHE_DIR=/tmp/tc-big timeout 90 build/mnist_bench $F --json $OUT/b/ours-fp8-1.json > $OUT/b/ours-fp8-1.txt 2>&1; echo "ours 1 rc $?"; grep -E "^784-4096" $OUT/b/ours-fp8-1.txt | cut -c1-90
s=$(date +%s)
timeout 240 python3 scripts/bench_pytorch.py --networks 4096-4096:4096 --precisions fp8 --variants compiled --activations relu --repeats 5 --json $OUT/b/torch-fp8.json > $OUT/b/torch-fp8.txt 2>&1; echo "torch rc $? $(( $(date +%s) - s )) s"; tail -3 $OUT/b/torch-fp8.txt | cut -c1-200
MNIST_TUNE_CACHE_DIR=/tmp/tc-big timeout 90 build/mnist_bench $F --json $OUT/b/ours-fp8-2.json > $OUT/b/ours-fp8-2.txt 2>&1; echo "ours 2 rc $?"; grep -E "^784-4096" $OUT/b/ours-fp8-2.txt | cut -c1-90
cd $OUT && tar -czf B-logs.tgz b && rm -rf b
