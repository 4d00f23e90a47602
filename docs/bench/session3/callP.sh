#!/bin/bash
# Session 3, device call P (the build that ships): README's run (into README, then its test); the GPU suite and
# test_step_tune; the default run in every mode off / first / cached / a72cb34, 5 rounds; every mnist_bench row
# tuned, --autotune off, and a72cb34's.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
B=build/mnist_train; A=pack/base/mnist_train
$B --epochs 5 > $OUT/readme_run.txt 2>&1; tail -1 $OUT/readme_run.txt
python3 pack/put_block.py README.md $OUT/readme_run.txt
(cd build && timeout 150 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > $OUT/ctest.txt 2>&1
(cd build && timeout 80 ctest -R "test_step_tune" --output-on-failure -V) >> $OUT/ctest.txt 2>&1
grep -E "tests passed|\*\*\*|Assert|\.c:[0-9]+:|Failed" $OUT/ctest.txt | cut -c1-180 | tail -10
for m in fused unfused auto; do timeout 20 $B --mode $m --epochs 1 --tune-cache-dir /tmp/tc-$m > /dev/null 2>&1; done
timeout 110 scripts/ab_tune.sh --rounds 5 --log $OUT/ab -- off="$B --autotune off" first="$B --tune-cache off" cached="$B --tune-cache-dir /tmp/tc-fused" a72="$A" \
  off-u="$B --mode unfused --autotune off" first-u="$B --mode unfused --tune-cache off" cached-u="$B --mode unfused --tune-cache-dir /tmp/tc-unfused" a72-u="$A --mode unfused" \
  off-a="$B --mode auto --autotune off" first-a="$B --mode auto --tune-cache off" cached-a="$B --mode auto --tune-cache-dir /tmp/tc-auto" a72-a="$A --mode auto" > $OUT/ab.txt 2>&1
cat $OUT/ab.txt
MNIST_TUNE_CACHE_DIR=/tmp/tck timeout 100 build/mnist_bench --no-layers --repeats 5 --json $OUT/ours.json > $OUT/bench_new.txt 2>&1; echo "new rc=$?"
timeout 55 build/mnist_bench --no-layers --repeats 5 --autotune off --json $OUT/ours_off.json > $OUT/bench_off.txt 2>&1; echo "off rc=$?"
timeout 70 pack/base/mnist_bench --no-layers --repeats 5 > $OUT/bench_a72.txt 2>&1; echo "a72 rc=$?"
cd $OUT && tar -czf logsP.tgz ab ctest.txt && rm -rf ab ctest.txt
