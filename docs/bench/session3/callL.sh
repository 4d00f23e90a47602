#!/bin/bash
# Session 3, device call L: choices made apart adopted without lists; the GPU suite with test_step_tune;
# the default run in every mode (off / first / here / cached / a72cb34); every mnist_bench row tuned, off, a72cb34's.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
B=build/mnist_train; A=pack/base/mnist_train
(cd build && timeout 150 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > $OUT/ctest.txt 2>&1
(cd build && timeout 90 ctest -R "test_step_tune" --output-on-failure -V) >> $OUT/ctest.txt 2>&1
grep -E "tests passed|\*\*\*|Assert|step tuner: f|behind|Failed" $OUT/ctest.txt | cut -c1-180 | tail -14
for m in fused unfused auto; do timeout 30 $B --mode $m --epochs 1 --tune-cache-dir /tmp/tc-$m > /dev/null 2>&1; done
timeout 100 scripts/ab_tune.sh --rounds 3 --log $OUT/ab -- off="$B --autotune off" first="$B --tune-cache off" cached="$B --tune-cache-dir /tmp/tc-fused" a72="$A" \
  off-u="$B --mode unfused --autotune off" first-u="$B --mode unfused --tune-cache off" cached-u="$B --mode unfused --tune-cache-dir /tmp/tc-unfused" \
  off-a="$B --mode auto --autotune off" first-a="$B --mode auto --tune-cache off" cached-a="$B --mode auto --tune-cache-dir /tmp/tc-auto" 2>&1 | tee $OUT/ab.txt
s=$(date +%s)
MNIST_TUNE_CACHE_DIR=/tmp/tck timeout 110 build/mnist_bench --no-layers --repeats 5 --json $OUT/ours.json > $OUT/bench_new.txt 2>&1; echo "new rc=$? $(( $(date +%s) - s )) s"
timeout 60 build/mnist_bench --no-layers --repeats 5 --autotune off --json $OUT/ours_off.json > $OUT/bench_off.txt 2>&1; echo "off rc=$?"
timeout 80 pack/base/mnist_bench --no-layers --repeats 5 > $OUT/bench_a72.txt 2>&1; echo "a72 rc=$?"
cd $OUT && tar -czf logsL.tgz ab ctest.txt && rm -rf ab ctest.txt
