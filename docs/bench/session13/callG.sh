#!/bin/bash
# Session 13, device call G: call F's build plus the fix of the race it found (epoch_data_shuffle wrote the pinned
# order buffer while the test split's upload from it could still be pending: test_epoch_gather_racecheck saw the test
# split in a shuffled order). The GPU suite, that test three more times, and test_step_tune.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p $OUT/g
(cd build && timeout 200 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > $OUT/g/ctest.txt 2>&1
grep -E "tests passed|\*\*\*|Assert|Failed" $OUT/g/ctest.txt | cut -c1-200 | tail -6
for i in 1 2 3; do
  (cd build && timeout 60 ctest -R "test_epoch_gather_racecheck" --output-on-failure) > $OUT/g/racecheck-$i.txt 2>&1
  echo "racecheck $i: $(grep -E 'tests passed' $OUT/g/racecheck-$i.txt)"
done
(cd build && timeout 120 ctest -R "test_step_tune" --output-on-failure -V) > $OUT/g/step_tune.txt 2>&1
echo "step_tune: $(grep -E 'tests passed' $OUT/g/step_tune.txt)"; grep -E "Assert|fresh context" $OUT/g/step_tune.txt | cut -c1-220 | head -4
cd $OUT && tar -czf G-logs.tgz g && rm -rf g
