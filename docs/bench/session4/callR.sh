#!/bin/bash
# Session 4, device call R: HEAD d936e9f (75ac896, 67d5d38, 5c6abd6 never ran on a GPU): the GPU suite and
# test_step_tune; README's run; the default run off / first / cached per mode, 3 rounds; and a diagnostic of the
# bench rows slower tuned than off: mnist_bench at 784-1024-1024-10 only, all precisions and tf32 only, tuned / off.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
B=build/mnist_train
$B --epochs 5 > $OUT/readme_run.txt 2>&1; tail -1 $OUT/readme_run.txt
(cd build && timeout 150 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > $OUT/ctest.txt 2>&1
(cd build && timeout 80 ctest -R "test_step_tune" --output-on-failure -V) >> $OUT/ctest.txt 2>&1
grep -E "tests passed|\*\*\*|Assert|\.c:[0-9]+:|Failed" $OUT/ctest.txt | cut -c1-180 | tail -10
for m in fused unfused auto; do timeout 20 $B --mode $m --epochs 1 --tune-cache-dir /tmp/tc-$m > /dev/null 2>&1; done
timeout 80 scripts/ab_tune.sh --rounds 3 --log $OUT/ab -- off="$B --autotune off" first="$B --tune-cache off" cached="$B --tune-cache-dir /tmp/tc-fused" \
  off-u="$B --mode unfused --autotune off" first-u="$B --mode unfused --tune-cache off" cached-u="$B --mode unfused --tune-cache-dir /tmp/tc-unfused" \
  off-a="$B --mode auto --autotune off" first-a="$B --mode auto --tune-cache off" cached-a="$B --mode auto --tune-cache-dir /tmp/tc-auto" > $OUT/ab.txt 2>&1
cat $OUT/ab.txt
for r in 1 2; do
  for p in all tf32; do
    P=""; [ $p = tf32 ] && P="--precision tf32"
    timeout 40 build/mnist_bench --no-layers --repeats 5 --network mid $P --tune-cache off > $OUT/mid_${p}_tuned_$r.txt 2>&1
    timeout 40 build/mnist_bench --no-layers --repeats 5 --network mid $P --autotune off > $OUT/mid_${p}_off_$r.txt 2>&1
  done
done
grep -h "^784.*tf32" $OUT/mid_*.txt | cut -c1-80
cd $OUT && tar -czf logsR.tgz ab ctest.txt mid_*.txt && rm -rf ab ctest.txt mid_*.txt
