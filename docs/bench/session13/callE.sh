#!/bin/bash
# Session 13, device call E (d3001bb's build): is a run that takes the big FP8 step's set from the tuning cache
# slower than the first run that tuned it (the bench's cached processes ran 8.59-8.68 ms an epoch, its tuning ones
# 8.49-8.54)? mnist_train --hidden 4096,4096 --batch 4096 --precision fp8 --epochs 8: tune and write, read, read,
# refresh (tune again), read, off; with --show-plans (the plans table says where a list was asked for).
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p $OUT/e
B="--hidden 4096,4096 --batch 4096 --precision fp8 --epochs 8 --show-plans"
summ() { echo "$1: $(grep -o '[0-9.]* ms per epoch (median)' $2) $(grep -o '[0-9.]* s wall clock' $2) $(grep -o 'fingerprint [0-9a-f]*, chosen in [0-9.]* ms [a-z ]*' $2)"; grep -E "^ +4096 +4096 +4096 +RELU_AUX_BIAS" $2 | head -2 | cut -c1-150; }
for r in 1 2; do
  for step in tune read1 read2 refresh read3 off; do
    f=$OUT/e/big-$step-$r.txt
    case $step in
      tune) rm -rf /tmp/tcE-$r; timeout 90 build/mnist_train $B --tune-cache-dir /tmp/tcE-$r > $f 2>&1;;
      refresh) timeout 90 build/mnist_train $B --tune-cache-dir /tmp/tcE-$r --tune-cache refresh > $f 2>&1;;
      off) timeout 90 build/mnist_train $B --tune-cache off --autotune off > $f 2>&1;;
      *) timeout 90 build/mnist_train $B --tune-cache-dir /tmp/tcE-$r > $f 2>&1;;
    esac
    summ $step-$r $f
  done
done
cd $OUT && tar -czf E-logs.tgz e && rm -rf e
