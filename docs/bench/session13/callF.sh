#!/bin/bash
# Session 13, device call F: the build that ships after a cold review (cache key "rule 8"; the check's set named by the
# caller, "start" only where the search set one; both rounds' GPU time counted; test_step_tune's auto case holds a check
# row to "start -> chosen"): the GPU suite and test_step_tune; the default run's auto first run.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p $OUT/f
(cd build && timeout 300 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > $OUT/f/ctest.txt 2>&1
grep -E "tests passed|\*\*\*|Assert|Failed" $OUT/f/ctest.txt | cut -c1-200 | tail -6
(cd build && timeout 120 ctest -R "test_step_tune" --output-on-failure -V) > $OUT/f/step_tune.txt 2>&1
echo "step_tune: $(grep -E 'tests passed' $OUT/f/step_tune.txt)"; grep -E "Assert|fresh context|-> ways alone" $OUT/f/step_tune.txt | cut -c1-220 | head -6
timeout 60 build/mnist_train --epochs 5 --show-plans --tune-cache-dir /tmp/tcF --mode auto > $OUT/f/def-auto.txt 2>&1
echo "def-auto: $(grep -o '[0-9.]* ms per epoch (median)' $OUT/f/def-auto.txt) $(grep -o '[0-9.]* s wall clock' $OUT/f/def-auto.txt) $(grep -o 'fingerprint [0-9a-f]*, chosen in [0-9.]* ms' $OUT/f/def-auto.txt)"
cd $OUT && tar -czf F-logs.tgz f && rm -rf f
