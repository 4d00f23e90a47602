#!/bin/bash
# Session 9, device call I (ca38dae, as F-H): test_step_tune's auto_is_never_behind case by hand, the command it
# runs (784-100-10 FP32 ReLU, every mode, --tune-cache off), 39e9bcf's build (the rows in a fixed order) against
# this one (a twin group's rows in another order each round), alternated, four processes each.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
[ -x build/mnist_bench ] || tar -xJf pack/build.tar.xz
mkdir -p /tmp/head && tar -xJf pack/head.tar.xz -C /tmp/head
mkdir -p $OUT/i
for k in 1 2 3 4; do for b in head new; do
  [ $b = head ] && M=/tmp/head/build/mnist_bench || M=build/mnist_bench
  timeout 40 $M --network seed --precision fp32 --activation relu --no-layers --repeats 5 --tune-cache off > $OUT/i/$b-$k.txt 2>&1 || echo "$b $k rc=$?"
  echo "$b $k: $(grep -E '^784' $OUT/i/$b-$k.txt | awk '{print $3, $6, $7}' | paste -sd' ')"
done; done
cd $OUT && tar -czf I-logs.tgz i && rm -rf i
