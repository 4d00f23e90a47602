#!/bin/bash
# Session 10, device call H (the build that ships: test_step_tune on tests/tune_report_text.h, the way rows'
# "no split"): the GPU suite, test_step_tune three times, the default network's auto report.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p $OUT/h
(cd build && timeout 200 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > $OUT/h/ctest.txt 2>&1
grep -E "tests passed|\*\*\*|Assert|Failed" $OUT/h/ctest.txt | cut -c1-200 | tail -6
for i in 1 2 3; do
  (cd build && timeout 100 ctest -R "test_step_tune" --output-on-failure) > $OUT/h/step_tune-$i.txt 2>&1
  echo "step_tune $i: $(grep -E 'tests passed' $OUT/h/step_tune-$i.txt)"; grep -E "Assert|differ only" $OUT/h/step_tune-$i.txt | cut -c1-220
done
build/mnist_train --mode auto --epochs 1 --tune-cache off --show-plans > $OUT/h/auto_plans.txt 2>&1
grep -E " way |fingerprint" $OUT/h/auto_plans.txt | head -8 | cut -c1-150
cd $OUT && tar -czf H-logs.tgz h && rm -rf h
