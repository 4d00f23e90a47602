#!/bin/bash
# Session 12, device call D: the build that ships (call C's tree plus the typed gather storing one 16-byte vector a
# lane from a contiguous load). The GPU suite and test_step_tune twice; ncu of the FP32 gather (default network, one
# epoch), new and HEAD's binary; the default run's three modes (5 epochs), a first run against off, twice; the big
# FP8 network's first run against off, twice; the big fp8 mnist_bench row three times around torchao compiled and
# graphed run twice.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p /tmp/head && tar -xJf pack/head.tar.xz -C /tmp/head
mkdir -p $OUT/d
(cd build && timeout 200 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > $OUT/d/ctest.txt 2>&1
grep -E "tests passed|\*\*\*|Assert|Failed" $OUT/d/ctest.txt | cut -c1-200 | tail -6
for i in 1 2; do
  (cd build && timeout 100 ctest -R "test_step_tune" --output-on-failure -V) > $OUT/d/step_tune-$i.txt 2>&1
  echo "step_tune $i: $(grep -E 'tests passed' $OUT/d/step_tune-$i.txt)"; grep -E "Assert|differ only|printed above" $OUT/d/step_tune-$i.txt | cut -c1-220 | head -4
done
for b in new head; do
  [ $b = head ] && M=/tmp/head/build/mnist_train || M=build/mnist_train
  for p in fp32 bf16; do
    timeout 100 ncu --clock-control none -k regex:"gather" --csv --page raw --print-units base --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
      $M --epochs 1 --precision $p --autotune off --tune-cache off > $OUT/d/ncu_${p}_$b.csv 2>&1; echo "ncu $p $b rc=$?"
  done
done
summ() { echo "$1: $(grep -o '[0-9.]* ms per epoch (median)' $2) $(grep -o 'test accuracy [0-9.]*%' $2) $(grep -o '[0-9.]* s wall clock' $2) $(grep -o 'fingerprint [0-9a-f]*, chosen in [0-9.]* ms' $2)"; grep -E "fresh context" $2 | cut -c1-230 | head -2; }
for r in 1 2; do
  for m in fused unfused auto; do
    for cfg in new off; do
      f=$OUT/d/def-$m-$cfg-$r.txt
      if [ $cfg = off ]; then timeout 60 build/mnist_train --epochs 5 --show-plans --tune-cache off --mode $m --autotune off > $f 2>&1
      else timeout 60 build/mnist_train --epochs 5 --show-plans --tune-cache-dir /tmp/tc-$m-$r --mode $m > $f 2>&1; fi
      summ def-$m-$cfg-$r $f
    done
  done
done
B="--hidden 4096,4096 --batch 4096 --precision fp8 --epochs 8 --tune-cache off --show-plans"
for r in 1 2; do for cfg in new off; do
  f=$OUT/d/big-$cfg-$r.txt
  if [ $cfg = off ]; then timeout 90 build/mnist_train $B --autotune off > $f 2>&1; else timeout 90 build/mnist_train $B > $f 2>&1; fi
  summ big-$cfg-$r $f
done; done
timeout 60 build/mnist_train --precision fp8 --epochs 5 > $OUT/d/fp8-default.txt 2>&1; echo "fp8 default: $(grep -E '^done' $OUT/d/fp8-default.txt | cut -c1-80)"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/torchao-*.whl && export PYTHONPATH=/tmp/site
F="--network big --precision fp8 --activation relu --no-layers --repeats 5"
for r in 1 2 3; do
  MNIST_TUNE_CACHE_DIR=/tmp/tc-big timeout 90 build/mnist_bench $F --json $OUT/d/ours-fp8-$r.json > $OUT/d/ours-fp8-$r.txt 2>&1; echo "ours $r rc $?"; grep -E "^784-4096" $OUT/d/ours-fp8-$r.txt | cut -c1-90
  [ $r = 3 ] && break
  timeout 240 python3 scripts/bench_pytorch.py --networks 4096-4096:4096 --precisions fp8 --variants compiled --activations relu --repeats 5 --json $OUT/d/torch-fp8-$r.json > $OUT/d/torch-fp8-$r.txt 2>&1; echo "torch $r rc $?"; tail -1 $OUT/d/torch-fp8-$r.txt | cut -c1-200
done
cd $OUT && tar -czf D-logs.tgz d && rm -rf d
