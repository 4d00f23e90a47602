#!/bin/bash
# Session 10, device call G: the GPU suite and test_step_tune on the build that ships (1f7a778 + the ways' times
# alone in --show-plans), a default-network auto run's report; then call F's experiment (pack/call10F.sh).
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p $OUT/g
(cd build && timeout 200 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > $OUT/g/ctest.txt 2>&1
(cd build && timeout 100 ctest -R "test_step_tune" --output-on-failure) >> $OUT/g/ctest.txt 2>&1
grep -E "tests passed|\*\*\*|Assert|Failed" $OUT/g/ctest.txt | cut -c1-200 | tail -6
build/mnist_train --mode auto --epochs 1 --tune-cache off --show-plans > $OUT/g/auto_plans.txt 2>&1
grep -E " way |fingerprint" $OUT/g/auto_plans.txt | cut -c1-150
cd $OUT && tar -czf G-logs.tgz g && rm -rf g && cd - > /dev/null
bash pack/call10F.sh
