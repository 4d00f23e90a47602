#!/bin/bash
# Session 4, device call S: the tuner's context apart made while the data loads and destroyed while the graphs
# are captured (uncommitted on d936e9f): test_gpu_spare, test_step_tune; the default run off / first / cached /
# here per mode, 5 rounds; a first run's --show-plans; the seed network tf32 auto's evidence; every mnist_bench row
# in a process per network and precision, tuned (apart, no cache) and --autotune off, alternated, 2 rounds.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
B=build/mnist_train
(cd build && timeout 100 ctest -R "test_gpu_spare|test_step_tune" --output-on-failure) > $OUT/ctest.txt 2>&1
grep -E "tests passed|\*\*\*|Assert|\.c:[0-9]+:|Failed" $OUT/ctest.txt | cut -c1-180 | tail -10
for m in fused unfused auto; do timeout 20 $B --mode $m --epochs 1 --tune-cache-dir /tmp/tc-$m > /dev/null 2>&1; done
timeout 120 scripts/ab_tune.sh --rounds 5 --log $OUT/ab -- off="$B --autotune off" first="$B --tune-cache off" cached="$B --tune-cache-dir /tmp/tc-fused" here="$B --tune-cache off --tune-here" \
  off-u="$B --mode unfused --autotune off" first-u="$B --mode unfused --tune-cache off" cached-u="$B --mode unfused --tune-cache-dir /tmp/tc-unfused" \
  off-a="$B --mode auto --autotune off" first-a="$B --mode auto --tune-cache off" cached-a="$B --mode auto --tune-cache-dir /tmp/tc-auto" > $OUT/ab.txt 2>&1
cat $OUT/ab.txt
$B --tune-cache off --show-plans > $OUT/plans_first.txt 2>&1; grep -iE "chosen|apart" $OUT/plans_first.txt | head -3
$B --hidden 100 --batch 256 --precision tf32 --mode auto --tune-cache off --show-plans > $OUT/seed_tf32_auto.txt 2>&1; tail -2 $OUT/seed_tf32_auto.txt
mkdir -p $OUT/rows
for r in 1 2; do for n in seed mid big; do for p in fp32 tf32 bf16 fp16 fp8; do
  timeout 40 build/mnist_bench --no-layers --repeats 5 --network $n --precision $p --tune-cache off > $OUT/rows/$n-$p-tuned-$r.txt 2>&1 || echo "tuned $n $p $r rc=$?"
  timeout 40 build/mnist_bench --no-layers --repeats 5 --network $n --precision $p --autotune off > $OUT/rows/$n-$p-off-$r.txt 2>&1 || echo "off $n $p $r rc=$?"
done; done; done
cd $OUT && tar -czf logsS.tgz ab ctest.txt rows plans_first.txt seed_tf32_auto.txt && rm -rf ab ctest.txt rows
