#!/bin/bash
# Session 9, device call A (39e9bcf, HEAD at the start): the whole GPU suite first (8460e73 and 39e9bcf had not
# run on the GPU), README's run, then a probe of the big network's FP8 step: the step tuner with a budget that
# visits every call, so its evidence lists each candidate's step median (exact, then fast).
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p $OUT/a
build/mnist_train --epochs 5 > $OUT/a/readme_run.txt 2>&1; tail -1 $OUT/a/readme_run.txt
(cd build && timeout 200 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > $OUT/a/ctest.txt 2>&1
(cd build && timeout 90 ctest -R "test_step_tune" --output-on-failure) >> $OUT/a/ctest.txt 2>&1
grep -E "tests passed|\*\*\*|Assert|\.c:[0-9]+:|Failed" $OUT/a/ctest.txt | cut -c1-180 | tail -8
B="build/mnist_train --hidden 4096,4096 --batch 4096 --precision fp8 --epochs 3 --show-plans --tune-cache off"
$B --tune-budget 4000 > $OUT/a/big_exact.txt 2>&1; grep -E "^done|fingerprint" $OUT/a/big_exact.txt
$B --tune-budget 4000 --autotune fast > $OUT/a/big_fast.txt 2>&1; grep -E "^done|fingerprint" $OUT/a/big_fast.txt
$B > $OUT/a/big_default.txt 2>&1; grep -E "^done|fingerprint" $OUT/a/big_default.txt
$B --autotune off > $OUT/a/big_off.txt 2>&1; grep -E "^done|fingerprint" $OUT/a/big_off.txt
cd $OUT && tar -czf A.tgz a && rm -rf a
