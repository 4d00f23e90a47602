#!/bin/bash
# Session 15, device call E (2417ad7, the build that ships: call C's kernels, their files split, the review's tests,
# the amax pass at six blocks per SM): the GPU suite and test_step_tune; one more process each of the
# 784-1024-1024-10 rows, alternated: --autotune off, this build tuning (--tune-cache off), a72cb34's (pack/old): in
# call C seven of that network's rows ran over 1.01x off with the same set as off (the process's, not the choice's?).
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p $OUT/e
(cd build && timeout 150 ctest -L gpu -E test_step_tune -j4 --output-on-failure > $OUT/e/ctest.txt 2>&1; echo "suite rc $?"; grep -E "tests passed|Failed|\*\*\*" $OUT/e/ctest.txt | head)
(cd build && timeout 120 ctest -R test_step_tune -V > $OUT/e/step_tune.txt 2>&1; echo "step_tune rc $?"; grep -E "tests passed|F:" $OUT/e/step_tune.txt | cut -c1-300 | tail -2)
for r in 2; do
  for b in off new old; do
    s=$SECONDS
    case $b in
      old) timeout 60 pack/old/mnist_bench --network mid --no-layers --json $OUT/e/rows-old-mid-$r.json > $OUT/e/rows-old-mid-$r.txt 2>&1 ;;
      off) timeout 60 build/mnist_bench --network mid --no-layers --autotune off --json $OUT/e/rows-off-mid-$r.json > $OUT/e/rows-off-mid-$r.txt 2>&1 ;;
      new) timeout 60 build/mnist_bench --network mid --no-layers --tune-cache off --show-plans --json $OUT/e/rows-new-mid-$r.json > $OUT/e/rows-new-mid-$r.txt 2>&1 ;;
    esac
    echo "$b $r rc $? $((SECONDS - s)) s"
  done
done
cd $OUT && tar -czf E-logs.tgz e && rm -rf e
