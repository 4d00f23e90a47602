#!/bin/bash
# Session 3, device call I: the step tuner in a CUDA context apart (and the GPU started while the data is read),
# the default run off / first (apart) / first here / cached / d60b710 first / a72cb34 in every mode; the GPU suite;
# mid-network bf16 relu and fp8 gelu rows against d60b710's.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
B=build/mnist_train; O=pack/base2/mnist_train; A=pack/base/mnist_train
$B --epochs 1 --show-plans --tune-cache off 2>&1 | grep -A12 "step tuner:" | cut -c1-160 | tee $OUT/plans_first.txt | head -3
for m in fused unfused auto; do timeout 30 $B --mode $m --epochs 1 --tune-cache-dir /tmp/tc-$m > /dev/null 2>&1; done
timeout 220 scripts/ab_tune.sh --rounds 3 --log $OUT/ab -- off="$B --autotune off" first="$B --tune-cache off" here="$B --tune-cache off --tune-here" \
  cached="$B --tune-cache-dir /tmp/tc-fused" old="$O --tune-cache off" a72="$A" \
  off-u="$B --mode unfused --autotune off" first-u="$B --mode unfused --tune-cache off" here-u="$B --mode unfused --tune-cache off --tune-here" \
  cached-u="$B --mode unfused --tune-cache-dir /tmp/tc-unfused" old-u="$O --mode unfused --tune-cache off" a72-u="$A --mode unfused" \
  off-a="$B --mode auto --autotune off" first-a="$B --mode auto --tune-cache off" here-a="$B --mode auto --tune-cache off --tune-here" \
  cached-a="$B --mode auto --tune-cache-dir /tmp/tc-auto" old-a="$O --mode auto --tune-cache off" a72-a="$A --mode auto" 2>&1 | tee $OUT/ab.txt
(cd build && timeout 160 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > $OUT/ctest.txt 2>&1
(cd build && timeout 70 ctest -R "test_step_tune" --output-on-failure -V) >> $OUT/ctest.txt 2>&1
grep -E "tests passed|\*\*\*|Assert|fingerprint|behind|Failed" $OUT/ctest.txt | cut -c1-200 | tail -12
for a in "--network mid --precision bf16 --activation relu" "--network mid --precision fp8 --activation gelu"; do
  echo "== $a d60b710"; MNIST_TUNE_CACHE_DIR=/tmp/tco timeout 60 pack/base2/mnist_bench $a --no-layers --repeats 5 2>&1 | grep -E "^784"
  echo "== $a HEAD"; MNIST_TUNE_CACHE_DIR=/tmp/tcn timeout 60 build/mnist_bench $a --no-layers --repeats 5 2>&1 | grep -E "^784"
done > $OUT/mid_rows.txt 2>&1
cut -c1-90 $OUT/mid_rows.txt
cd $OUT && tar -czf logsI.tgz ab ctest.txt && rm -rf ab ctest.txt
