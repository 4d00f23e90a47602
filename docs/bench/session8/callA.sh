#!/bin/bash
# Session 8, device call A (6ff69f4, HEAD at the session's start): the whole GPU suite and README's run on HEAD;
# then a timeline of the default run (an experiment mnist_train of 6ff69f4 that prints time stamps on stderr under
# MNIST_X_TIMELINE, not committed), per mode: --autotune off, a first run (--tune-cache off), a run from the cache.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p $OUT/a
(cd build && timeout 170 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > $OUT/a/ctest.txt 2>&1
(cd build && timeout 90 ctest -R "test_step_tune" --output-on-failure) >> $OUT/a/ctest.txt 2>&1
grep -E "tests passed|\*\*\*|Assert|\.c:[0-9]+:|Failed" $OUT/a/ctest.txt | cut -c1-180 | tail -8
build/mnist_train --epochs 5 > $OUT/readme_run.txt 2>&1; tail -1 $OUT/readme_run.txt
X=pack/xt_mnist_train
for m in fused unfused auto; do MNIST_X_TIMELINE=1 $X --mode $m --epochs 1 --tune-cache-dir /tmp/tc-$m > /dev/null 2>&1; done
for r in 1 2; do
  for m in fused unfused auto; do
    for k in off first cached; do
      case $k in off) f="--autotune off";; first) f="--tune-cache off";; cached) f="--tune-cache-dir /tmp/tc-$m";; esac
      MNIST_X_TIMELINE=1 $X --mode $m $f --show-plans > $OUT/a/tl-$m-$k-$r.txt 2>&1
      echo "$m $k $r: $(grep -c XT $OUT/a/tl-$m-$k-$r.txt) stamps; $(grep '^done' $OUT/a/tl-$m-$k-$r.txt | sed 's/.*; //')"
    done
  done
done
cd $OUT && tar -czf A-logs.tgz a && rm -rf a
