#!/bin/bash
# Session 6, device call E (539f51d: the step tuner's winner gets challengers of its own; mnist_bench --show-plans):
# README's run; the GPU suite and test_step_tune; the default run off / first / cached per mode (3 rounds, as
# session 5's call A); mnist_bench's 784-100-10 rows and 784-4096-4096-10 TF32 GELU rows with --show-plans, first
# runs.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
B=build/mnist_train
$B --epochs 5 > $OUT/readme_run.txt 2>&1; tail -1 $OUT/readme_run.txt
mkdir -p $OUT/e
(cd build && timeout 170 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > $OUT/e/ctest.txt 2>&1
(cd build && timeout 90 ctest -R "test_step_tune" --output-on-failure) >> $OUT/e/ctest.txt 2>&1
grep -E "tests passed|\*\*\*|Assert|\.c:[0-9]+:|Failed" $OUT/e/ctest.txt | cut -c1-180 | tail -10
for m in fused unfused auto; do timeout 20 $B --mode $m --epochs 1 --tune-cache-dir /tmp/tc-$m > /dev/null 2>&1; done
timeout 120 scripts/ab_tune.sh --rounds 3 --log $OUT/e/ab -- off="$B --autotune off" first="$B --tune-cache off" cached="$B --tune-cache-dir /tmp/tc-fused" \
  off-u="$B --mode unfused --autotune off" first-u="$B --mode unfused --tune-cache off" cached-u="$B --mode unfused --tune-cache-dir /tmp/tc-unfused" \
  off-a="$B --mode auto --autotune off" first-a="$B --mode auto --tune-cache off" cached-a="$B --mode auto --tune-cache-dir /tmp/tc-auto" > $OUT/ab.txt 2>&1
cat $OUT/ab.txt | tail -12
timeout 60 build/mnist_bench --network seed --no-layers --repeats 5 --tune-cache off --show-plans > $OUT/e/seed_plans.txt 2>&1
grep -E "^784-100-10 +256 +(fused|unfused|auto)[a-z+]* +(fp32|bf16|fp8) +on" $OUT/e/seed_plans.txt | cut -c1-72
timeout 60 build/mnist_bench --network big --precision tf32 --activation gelu --no-layers --repeats 5 --tune-cache off --show-plans > $OUT/e/big_tf32_gelu_plans.txt 2>&1
grep -E "^784-4096-4096-10 .* on " $OUT/e/big_tf32_gelu_plans.txt | cut -c1-72
cd $OUT && tar -czf E-logs.tgz e && rm -rf e
