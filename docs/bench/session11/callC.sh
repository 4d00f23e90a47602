#!/bin/bash
# Session 11, device call C: the build that ships (the check in a fresh context weighs the chosen set against the
# untuned one, ways alone included; the algorithm floor at 1 %): the GPU suite, test_step_tune twice; the
# default network's three modes tuned (a first run) against --autotune off, two processes each, alternated, and
# one run from the cache; 784-4096-4096-10 fp8 fused and auto the same; mnist_bench's mid rows tuned (--show-plans)
# then off; the fp8 rows of 784-4096-4096-10 against torchao compiled and graphed, ours before and after the peer.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p $OUT/c
(cd build && timeout 200 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > $OUT/c/ctest.txt 2>&1
grep -E "tests passed|\*\*\*|Assert|Failed" $OUT/c/ctest.txt | cut -c1-200 | tail -6
for i in 1 2; do
  (cd build && timeout 100 ctest -R "test_step_tune" --output-on-failure -V) > $OUT/c/step_tune-$i.txt 2>&1
  echo "step_tune $i: $(grep -E 'tests passed' $OUT/c/step_tune-$i.txt)"; grep -E "Assert|differ only|printed above" $OUT/c/step_tune-$i.txt | cut -c1-220 | head -4
done
M=build/mnist_train
summ() { echo "$1: $(grep -o '[0-9.]* ms per epoch (median)' $2) $(grep -o 'test accuracy [0-9.]*%' $2) $(grep -o '[0-9.]* s wall clock' $2) $(grep -o 'fingerprint [0-9a-f]*, chosen in [0-9.]* ms' $2)"; grep -E "fresh context" $2 | cut -c1-260; }
D="--epochs 8 --show-plans"
for r in 1 2; do
  for m in fused unfused auto; do
    for cfg in new off; do
      f=$OUT/c/def-$m-$cfg-$r.txt
      if [ $cfg = off ]; then timeout 60 $M $D --tune-cache off --mode $m --autotune off > $f 2>&1; else timeout 60 $M $D --tune-cache-dir /tmp/tc-$m-$r --mode $m > $f 2>&1; fi
      summ def-$m-$cfg-$r $f
    done
  done
done
timeout 60 $M $D --tune-cache-dir /tmp/tc-fused-1 > $OUT/c/def-fused-cached.txt 2>&1; summ def-fused-cached $OUT/c/def-fused-cached.txt
B="--hidden 4096,4096 --batch 4096 --precision fp8 --epochs 8 --tune-cache off --show-plans"
for r in 1 2; do
  for m in fused auto; do
    for cfg in new off; do
      f=$OUT/c/big-$m-$cfg-$r.txt
      if [ $cfg = off ]; then timeout 90 $M $B --mode $m --autotune off > $f 2>&1; else timeout 90 $M $B --mode $m > $f 2>&1; fi
      summ big-$m-$cfg-$r $f
    done
  done
done
for cfg in new off; do
  s=$(date +%s)
  if [ $cfg = off ]; then a="--autotune off"; else a="--tune-cache off --show-plans"; fi
  timeout 110 build/mnist_bench --network mid --no-layers $a --json $OUT/c/$cfg-mid.json > $OUT/c/$cfg-mid.txt 2>&1; echo "$cfg mid rc $? $(( $(date +%s) - s )) s"
done
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/torchao-*.whl && export PYTHONPATH=/tmp/site
F="--network big --precision fp8 --activation relu --no-layers --repeats 5"
MNIST_TUNE_CACHE_DIR=/tmp/tc-big timeout 90 build/mnist_bench $F --json $OUT/c/ours-fp8-1.json > $OUT/c/ours-fp8-1.txt 2>&1; echo "ours 1 rc $?"; grep -E "^784-4096" $OUT/c/ours-fp8-1.txt | cut -c1-90
s=$(date +%s)
timeout 240 python3 scripts/bench_pytorch.py --networks 4096-4096:4096 --precisions fp8 --variants compiled --activations relu --repeats 5 --json $OUT/c/torch-fp8.json > $OUT/c/torch-fp8.txt 2>&1; echo "torch rc $? $(( $(date +%s) - s )) s"; tail -4 $OUT/c/torch-fp8.txt | cut -c1-200
MNIST_TUNE_CACHE_DIR=/tmp/tc-big timeout 90 build/mnist_bench $F --json $OUT/c/ours-fp8-2.json > $OUT/c/ours-fp8-2.txt 2>&1; echo "ours 2 rc $?"; grep -E "^784-4096" $OUT/c/ours-fp8-2.txt | cut -c1-90
cd $OUT && tar -czf C-logs.tgz c && rm -rf c
