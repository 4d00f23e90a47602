#!/bin/bash
# Session 13, device call B: the working tree (under --mode auto the check defends the start, the ways the way
# search started from; the untuned step timed alone in two rounds, the first discarded) against HEAD 2d61d30's
# binary (pack/head.tar.xz) and --autotune off: the GPU suite and test_step_tune; the default run's three modes,
# a first run each, three rounds; the big FP8 network's first run, three rounds; mnist_bench's seed and mid rows
# tuned then off; the big fp8 row around torchao compiled and graphed, twice.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p /tmp/head && tar -xJf pack/head.tar.xz -C /tmp/head
mkdir -p $OUT/b
(cd build && timeout 300 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > $OUT/b/ctest.txt 2>&1
grep -E "tests passed|\*\*\*|Assert|Failed" $OUT/b/ctest.txt | cut -c1-200 | tail -6
(cd build && timeout 120 ctest -R "test_step_tune" --output-on-failure -V) > $OUT/b/step_tune.txt 2>&1
echo "step_tune: $(grep -E 'tests passed' $OUT/b/step_tune.txt)"; grep -E "Assert|differ only|printed above" $OUT/b/step_tune.txt | cut -c1-220 | head -4
summ() { echo "$1: $(grep -o '[0-9.]* ms per epoch (median)' $2) $(grep -o 'test accuracy [0-9.]*%' $2) $(grep -o '[0-9.]* s wall clock' $2) $(grep -o 'fingerprint [0-9a-f]*, chosen in [0-9.]* ms' $2)"; grep -E "fresh context" $2 | cut -c1-260 | head -2; }
for r in 1 2 3; do
  for m in fused unfused auto; do
    for cfg in new head off; do
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
for r in 1 2 3; do for cfg in new off; do
  f=$OUT/b/big-$cfg-$r.txt
  if [ $cfg = off ]; then timeout 90 build/mnist_train $B --autotune off > $f 2>&1; else timeout 90 build/mnist_train $B > $f 2>&1; fi
  summ big-$cfg-$r $f
done; done
for net in seed mid; do
  for cfg in new off; do
    s=$(date +%s)
    if [ $cfg = off ]; then a="--autotune off"; else a="--tune-cache off --show-plans"; fi
    timeout 150 build/mnist_bench --network $net --no-layers $a --json $OUT/b/$cfg-$net.json > $OUT/b/$cfg-$net.txt 2>&1; echo "$cfg $net rc $? $(( $(date +%s) - s )) s"
  done
done
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/torchao-*.whl && export PYTHONPATH=/tmp/site
F="--network big --precision fp8 --activation relu --no-layers --repeats 5"
for r in 1 2 3; do
  MNIST_TUNE_CACHE_DIR=/tmp/tc-big timeout 90 build/mnist_bench $F --json $OUT/b/ours-fp8-$r.json > $OUT/b/ours-fp8-$r.txt 2>&1; echo "ours $r rc $?"; grep -E "^784-4096" $OUT/b/ours-fp8-$r.txt | cut -c1-90
  [ $r = 3 ] && break
  timeout 240 python3 scripts/bench_pytorch.py --networks 4096-4096:4096 --precisions fp8 --variants compiled --activations relu --repeats 5 --json $OUT/b/torch-fp8-$r.json > $OUT/b/torch-fp8-$r.txt 2>&1; echo "torch $r rc $?"; tail -1 $OUT/b/torch-fp8-$r.txt | cut -c1-200
done
cd $OUT && tar -czf B-logs.tgz b && rm -rf b
