#!/bin/bash
# Session 5, device call K (02f6c1c: 3fb18e8's kernels, later commits comments and docs): the GPU suite and
# test_step_tune on the final build; README's run; the default fp8 run; why auto_is_never_behind failed in calls I
# and J: the 784-100-10 FP32 rows twice and --show-plans of first runs of that network in each mode.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
build/mnist_train --epochs 5 > $OUT/readme_run.txt 2>&1; tail -1 $OUT/readme_run.txt
(cd build && timeout 200 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > $OUT/ctest.txt 2>&1
(cd build && timeout 60 ctest -R "test_step_tune" --output-on-failure) >> $OUT/ctest.txt 2>&1
grep -E "tests passed|\*\*\*|behind|Failed" $OUT/ctest.txt | cut -c1-160 | tail -8
build/mnist_train --epochs 5 --precision fp8 2>&1 | grep "^done" | cut -c1-110
for i in 1 2; do timeout 40 build/mnist_bench --network seed --precision fp32 --activation relu --no-layers --repeats 5 --tune-cache off 2>&1 | grep -E "^784" | cut -c1-72; done | tee $OUT/seed_fp32_rows.txt
for m in fused unfused auto; do timeout 30 build/mnist_train --hidden 100 --batch 256 --mode $m --epochs 3 --tune-cache off --show-plans > $OUT/plans-$m.txt 2>&1
  grep -E "^done|fingerprint" $OUT/plans-$m.txt | cut -c1-120; done
cd $OUT && tar -czf logsK.tgz ctest.txt plans-*.txt && rm -f ctest.txt plans-*.txt
