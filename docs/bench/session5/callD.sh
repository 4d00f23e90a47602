#!/bin/bash
# Session 5, device call D: an experiment binary (pack/xfloor: call C's build with the algorithm floor read from
# MNIST_X_ALGOFLOOR, uncommitted) - does a lower floor than 10 % of the step choose algorithms the epochs confirm?
# The default run off / first at 0.10 / first at 0.02 per mode (3 rounds); --show-plans at 0.02; the big network's
# fp8 and bf16 rows and 784-100-10 fp32 at both floors, without the cache, alternated, two processes each.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
X=pack/xfloor/mnist_train; XB=pack/xfloor/mnist_bench
timeout 150 scripts/ab_tune.sh --rounds 3 --log $OUT/ab -- off="$X --autotune off" f10="$X --tune-cache off" f02="env MNIST_X_ALGOFLOOR=0.02 $X --tune-cache off" \
  off-u="$X --mode unfused --autotune off" f10-u="$X --mode unfused --tune-cache off" f02-u="env MNIST_X_ALGOFLOOR=0.02 $X --mode unfused --tune-cache off" \
  off-a="$X --mode auto --autotune off" f10-a="$X --mode auto --tune-cache off" f02-a="env MNIST_X_ALGOFLOOR=0.02 $X --mode auto --tune-cache off" > $OUT/ab.txt 2>&1
cat $OUT/ab.txt
mkdir -p $OUT/plans
for m in fused unfused auto; do MNIST_X_ALGOFLOOR=0.02 $X --mode $m --tune-cache off --show-plans > $OUT/plans/default-$m-02.txt 2>&1; grep -E "fingerprint" $OUT/plans/default-$m-02.txt; done
MNIST_X_ALGOFLOOR=0.02 timeout 60 $X --hidden 4096,4096 --batch 4096 --precision fp8 --epochs 2 --tune-cache off --show-plans > $OUT/plans/big-fp8-02.txt 2>&1
grep -E "fingerprint|->" $OUT/plans/big-fp8-02.txt | cut -c1-120
mkdir -p $OUT/rows
for round in 1 2; do for fl in 0.10 0.02; do
  for a in "big fp8" "big bf16" "seed fp32"; do set -- $a
    MNIST_X_ALGOFLOOR=$fl timeout 60 $XB --network $1 --precision $2 --activation relu --no-layers --repeats 5 --tune-cache off > $OUT/rows/$1-$2-$fl-$round.txt 2>&1 || echo "$a $fl rc=$?"
  done
done; done
for f in $OUT/rows/*.txt; do echo "== $(basename $f)"; grep -E "^784" $f | cut -c1-80; done > $OUT/rows.txt
cd $OUT && tar -czf logsD.tgz ab plans rows && rm -rf ab plans rows
