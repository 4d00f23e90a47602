#!/bin/bash
# Session 7, device call J (the working tree after call I: auto's step tuner also weighs the step whose calls
# go the ways they take alone, and its way search gets at least a budget of its own; a72cb34's binaries in
# pack/base.tar.xz): the whole GPU suite; the default run under auto (off / first / cached / a72cb34) beside
# fused and unfused first runs, 5 rounds; every mnist_bench row (--no-layers), a process per network, tuned
# (--tune-cache off, --show-plans) and --autotune off alternated.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
tar -xJf pack/base.tar.xz -C /tmp
B=build/mnist_train; A=/tmp/base/mnist_train
mkdir -p $OUT/j
(cd build && timeout 170 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > $OUT/j/ctest.txt 2>&1
(cd build && timeout 150 ctest -R "test_step_tune" --output-on-failure -V) >> $OUT/j/ctest.txt 2>&1
grep -E "tests passed|\*\*\*|Assert|\.c:[0-9]+:|Failed|ways alone" $OUT/j/ctest.txt | cut -c1-180 | tail -10
timeout 20 $B --mode auto --epochs 1 --tune-cache-dir /tmp/tc-auto > /dev/null 2>&1
timeout 120 scripts/ab_tune.sh --rounds 5 --log $OUT/j/ab -- off-a="$B --mode auto --autotune off" first-a="$B --mode auto --tune-cache off" \
  cached-a="$B --mode auto --tune-cache-dir /tmp/tc-auto" a72-a="$A --mode auto" first-u="$B --mode unfused --tune-cache off" first="$B --tune-cache off" > $OUT/ab.txt 2>&1
tail -8 $OUT/ab.txt
$B --mode auto --epochs 1 --tune-cache off --show-plans > $OUT/j/default_auto_plans.txt 2>&1
for net in seed mid big; do
  timeout 110 build/mnist_bench --network $net --no-layers --tune-cache off --show-plans --json $OUT/j/rows-new-$net.json > $OUT/j/rows-new-$net.txt 2>&1; echo "new $net rc $?"
  timeout 100 build/mnist_bench --network $net --no-layers --autotune off --json $OUT/j/rows-off-$net.json > $OUT/j/rows-off-$net.txt 2>&1; echo "off $net rc $?"
done
cd $OUT && tar -czf J-logs.tgz j && rm -rf j
