#!/bin/bash
# Session 12, device call C: the working tree after call B's, plus the FP8 gather writing X8T itself (no transpose
# pass) and the check's ways-only rule (sets that differ in ways only: the pairs decide). The GPU suite and
# test_step_tune twice; ncu of the gather kernels (one FP8 epoch of 784-4096-4096-10, one FP32 epoch of the default
# network); the big FP8 network's first run against off and HEAD's binary, twice; the default run's three modes,
# a first run against off, twice; mnist_bench's seed and mid rows tuned then off; the big fp8 row before and after
# torchao compiled and graphed.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p /tmp/head && tar -xJf pack/head.tar.xz -C /tmp/head
mkdir -p $OUT/c
(cd build && timeout 200 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > $OUT/c/ctest.txt 2>&1
grep -E "tests passed|\*\*\*|Assert|Failed" $OUT/c/ctest.txt | cut -c1-200 | tail -6
for i in 1 2; do
  (cd build && timeout 100 ctest -R "test_step_tune" --output-on-failure -V) > $OUT/c/step_tune-$i.txt 2>&1
  echo "step_tune $i: $(grep -E 'tests passed' $OUT/c/step_tune-$i.txt)"; grep -E "Assert|differ only|printed above" $OUT/c/step_tune-$i.txt | cut -c1-220 | head -4
done
for b in new head; do
  [ $b = head ] && M=/tmp/head/build/mnist_train || M=build/mnist_train
  timeout 100 ncu --clock-control none -k regex:"gather|transpose" --csv --page raw --print-units base --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
    $M --hidden 4096,4096 --batch 4096 --precision fp8 --epochs 1 --autotune off --tune-cache off > $OUT/c/ncu_fp8_$b.csv 2>&1; echo "ncu fp8 $b rc=$?"
  timeout 100 ncu --clock-control none -k regex:"gather" --csv --page raw --print-units base --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
    $M --epochs 1 --autotune off --tune-cache off > $OUT/c/ncu_fp32_$b.csv 2>&1; echo "ncu fp32 $b rc=$?"
done
summ() { echo "$1: $(grep -o '[0-9.]* ms per epoch (median)' $2) $(grep -o 'test accuracy [0-9.]*%' $2) $(grep -o '[0-9.]* s wall clock' $2) $(grep -o 'fingerprint [0-9a-f]*, chosen in [0-9.]* ms' $2)"; grep -E "fresh context" $2 | cut -c1-230 | head -2; }
B="--hidden 4096,4096 --batch 4096 --precision fp8 --epochs 8 --tune-cache off --show-plans"
for r in 1 2; do for cfg in new head off; do
  f=$OUT/c/big-$cfg-$r.txt
  case $cfg in
    off) timeout 90 build/mnist_train $B --autotune off > $f 2>&1;;
    new) timeout 90 build/mnist_train $B > $f 2>&1;;
    head) timeout 90 /tmp/head/build/mnist_train $B > $f 2>&1;;
  esac
  summ big-$cfg-$r $f
done; done
for r in 1 2; do
  for m in fused unfused auto; do
    for cfg in new off; do
      f=$OUT/c/def-$m-$cfg-$r.txt
      if [ $cfg = off ]; then timeout 60 build/mnist_train --epochs 5 --show-plans --tune-cache off --mode $m --autotune off > $f 2>&1
      else timeout 60 build/mnist_train --epochs 5 --show-plans --tune-cache-dir /tmp/tc-$m-$r --mode $m > $f 2>&1; fi
      summ def-$m-$cfg-$r $f
    done
  done
done
for net in seed mid; do
  for cfg in new off; do
    s=$(date +%s)
    if [ $cfg = off ]; then a="--autotune off"; else a="--tune-cache off --show-plans"; fi
    timeout 120 build/mnist_bench --network $net --no-layers $a --json $OUT/c/$cfg-$net.json > $OUT/c/$cfg-$net.txt 2>&1; echo "$cfg $net rc $? $(( $(date +%s) - s )) s"
  done
done
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/torchao-*.whl && export PYTHONPATH=/tmp/site
F="--network big --precision fp8 --activation relu --no-layers --repeats 5"
MNIST_TUNE_CACHE_DIR=/tmp/tc-big timeout 90 build/mnist_bench $F --json $OUT/c/ours-fp8-1.json > $OUT/c/ours-fp8-1.txt 2>&1; echo "ours 1 rc $?"; grep -E "^784-4096" $OUT/c/ours-fp8-1.txt | cut -c1-90
s=$(date +%s)
timeout 240 python3 scripts/bench_pytorch.py --networks 4096-4096:4096 --precisions fp8 --variants compiled --activations relu --repeats 5 --json $OUT/c/torch-fp8.json > $OUT/c/torch-fp8.txt 2>&1; echo "torch rc $? $(( $(date +%s) - s )) s"; tail -1 $OUT/c/torch-fp8.txt | cut -c1-200
MNIST_TUNE_CACHE_DIR=/tmp/tc-big timeout 90 build/mnist_bench $F --json $OUT/c/ours-fp8-2.json > $OUT/c/ours-fp8-2.txt 2>&1; echo "ours 2 rc $?"; grep -E "^784-4096" $OUT/c/ours-fp8-2.txt | cut -c1-90
cd $OUT && tar -czf C-logs.tgz c && rm -rf c
