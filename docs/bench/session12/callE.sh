#!/bin/bash
# Session 12, device call E: the build that ships after a cold review (the gathers' test in test_epoch_gather
# with more batch sizes, both splits and the FP8 gather, run again under memcheck and racecheck; comments): the GPU
# suite and test_step_tune.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p $OUT/e
(cd build && timeout 300 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > $OUT/e/ctest.txt 2>&1
grep -E "tests passed|\*\*\*|Assert|Failed|epoch_gather" $OUT/e/ctest.txt | cut -c1-200 | tail -12
(cd build && timeout 100 ctest -R "test_step_tune" --output-on-failure -V) > $OUT/e/step_tune.txt 2>&1
echo "step_tune: $(grep -E 'tests passed' $OUT/e/step_tune.txt)"
cd $OUT && tar -czf E-logs.tgz e && rm -rf e
