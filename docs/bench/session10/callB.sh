#!/bin/bash
# Session 10, device call B (f3d1d89 + test_step_tune's per-slot rule and the auto case's whole-step floor):
# the GPU suite, then test_step_tune three times.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p $OUT/b
start=$(date +%s)
(cd build && timeout 200 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > $OUT/b/ctest.txt 2>&1
grep -E "tests passed|\*\*\*|Assert|Failed" $OUT/b/ctest.txt | cut -c1-200 | tail -6
echo "suite $(( $(date +%s) - start )) s"
for i in 1 2 3; do
  s=$(date +%s)
  (cd build && timeout 150 ctest -R "test_step_tune" --output-on-failure) > $OUT/b/step_tune-$i.txt 2>&1
  echo "step_tune $i: $(grep -E 'tests passed' $OUT/b/step_tune-$i.txt) $(( $(date +%s) - s )) s"
  grep -E "Assert|near the rule|fingerprint" $OUT/b/step_tune-$i.txt | cut -c1-220
done
cd $OUT && tar -czf B-logs.tgz b && rm -rf b
