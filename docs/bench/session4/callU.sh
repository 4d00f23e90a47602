#!/bin/bash
# Session 4, device call U (the build to ship: d936e9f + the tuner's context apart destroyed on a thread of its own
# while the graphs are captured, and auto's floors 3 % per way, 0.5 % between whole steps): the GPU suite and
# test_step_tune; README's run (into README); the default run off / first / cached per mode and a72cb34's, 5 rounds;
# a first run's --show-plans; every mnist_bench row in a process per network and precision, tuned and --autotune off.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
B=build/mnist_train; A=pack/base/mnist_train
$B --epochs 5 > $OUT/readme_run.txt 2>&1; tail -1 $OUT/readme_run.txt
python3 pack/put_block.py README.md $OUT/readme_run.txt
(cd build && timeout 170 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > $OUT/ctest.txt 2>&1
(cd build && timeout 90 ctest -R "test_step_tune" --output-on-failure -V) >> $OUT/ctest.txt 2>&1
grep -E "tests passed|\*\*\*|Assert|\.c:[0-9]+:|Failed" $OUT/ctest.txt | cut -c1-180 | tail -10
for m in fused unfused auto; do timeout 20 $B --mode $m --epochs 1 --tune-cache-dir /tmp/tc-$m > /dev/null 2>&1; done
timeout 110 scripts/ab_tune.sh --rounds 5 --log $OUT/ab -- off="$B --autotune off" first="$B --tune-cache off" cached="$B --tune-cache-dir /tmp/tc-fused" a72="$A" \
  off-u="$B --mode unfused --autotune off" first-u="$B --mode unfused --tune-cache off" cached-u="$B --mode unfused --tune-cache-dir /tmp/tc-unfused" a72-u="$A --mode unfused" \
  off-a="$B --mode auto --autotune off" first-a="$B --mode auto --tune-cache off" cached-a="$B --mode auto --tune-cache-dir /tmp/tc-auto" a72-a="$A --mode auto" > $OUT/ab.txt 2>&1
cat $OUT/ab.txt
$B --tune-cache off --show-plans > $OUT/plans_first.txt 2>&1; grep -E "chosen in" $OUT/plans_first.txt
$B --mode auto --tune-cache off --show-plans > $OUT/plans_auto.txt 2>&1; grep -E "chosen in|done:" $OUT/plans_auto.txt
mkdir -p $OUT/rows
for n in seed mid big; do for p in fp32 tf32 bf16 fp16 fp8; do
  timeout 40 build/mnist_bench --no-layers --repeats 5 --network $n --precision $p --tune-cache off --json $OUT/rows/$n-$p-tuned.json > $OUT/rows/$n-$p-tuned-1.txt 2>&1 || echo "tuned $n $p rc=$?"
  timeout 40 build/mnist_bench --no-layers --repeats 5 --network $n --precision $p --autotune off --json $OUT/rows/$n-$p-off.json > $OUT/rows/$n-$p-off-1.txt 2>&1 || echo "off $n $p rc=$?"
done; done
cd $OUT && tar -czf logsU.tgz ab ctest.txt rows plans_first.txt plans_auto.txt && rm -rf ab ctest.txt rows plans_first.txt plans_auto.txt
