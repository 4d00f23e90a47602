#!/bin/bash
# Session 8, device call B (6ff69f4 + the GPU start-up check on the start-up thread and the pixel statistics in
# integers, uncommitted): the GPU suite; the default run off / first / cached per mode against 6ff69f4's first runs
# (head), 5 rounds; the experiment timeline (MNIST_X_TIMELINE, stamps on stderr) of the same change.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
tar -xJf pack/head.tar.xz -C /tmp
mkdir -p $OUT/b
(cd build && timeout 170 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > $OUT/b/ctest.txt 2>&1
(cd build && timeout 90 ctest -R "test_step_tune" --output-on-failure) >> $OUT/b/ctest.txt 2>&1
grep -E "tests passed|\*\*\*|Assert|\.c:[0-9]+:|Failed" $OUT/b/ctest.txt | cut -c1-180 | tail -8
B=build/mnist_train; H=/tmp/head/mnist_train
for m in fused unfused auto; do timeout 20 $B --mode $m --epochs 1 --tune-cache-dir /tmp/tc-$m > /dev/null 2>&1; done
timeout 200 scripts/ab_tune.sh --rounds 5 --log $OUT/b/ab -- off="$B --autotune off" first="$B --tune-cache off" cached="$B --tune-cache-dir /tmp/tc-fused" head="$H --tune-cache off" \
  off-u="$B --mode unfused --autotune off" first-u="$B --mode unfused --tune-cache off" cached-u="$B --mode unfused --tune-cache-dir /tmp/tc-unfused" head-u="$H --mode unfused --tune-cache off" \
  off-a="$B --mode auto --autotune off" first-a="$B --mode auto --tune-cache off" cached-a="$B --mode auto --tune-cache-dir /tmp/tc-auto" head-a="$H --mode auto --tune-cache off" > $OUT/ab.txt 2>&1
cat $OUT/ab.txt | tail -13
X=pack/xt_mnist_train
for r in 1 2; do
  for m in fused unfused auto; do
    for k in off first cached; do
      case $k in off) f="--autotune off";; first) f="--tune-cache off";; cached) f="--tune-cache-dir /tmp/tc-$m";; esac
      MNIST_X_TIMELINE=1 $X --mode $m $f --show-plans > $OUT/b/tl-$m-$k-$r.txt 2>&1
    done
  done
done
cd $OUT && tar -czf B-logs.tgz b && rm -rf b
