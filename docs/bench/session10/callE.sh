#!/bin/bash
# Session 10, device call E (1f7a778 + auto's way search by the ways' times alone, uncommitted): the GPU suite and
# test_step_tune; 784-1024-1024-10 FP32 auto with the default budget, --show-plans, two processes, and --autotune off;
# every mnist_bench row (--no-layers), per network tuned (--tune-cache off) then --autotune off.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p $OUT/e
(cd build && timeout 200 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > $OUT/e/ctest.txt 2>&1
(cd build && timeout 100 ctest -R "test_step_tune" --output-on-failure) >> $OUT/e/ctest.txt 2>&1
grep -E "tests passed|\*\*\*|Assert|Failed" $OUT/e/ctest.txt | cut -c1-200 | tail -6
B=build/mnist_train; mid="--hidden 1024,1024 --batch 256 --precision fp32 --mode auto --epochs 3"
for r in 1 2; do
  $B $mid --tune-cache off --show-plans > $OUT/e/mid-auto-$r.txt 2>&1
  $B $mid --autotune off > $OUT/e/mid-off-$r.txt 2>&1
done
for f in $OUT/e/mid-*.txt; do echo "$(basename $f .txt): $(grep -o '[0-9.]* ms per epoch (median)' $f) $(grep -o 'fingerprint [0-9a-f]*' $f)"; grep -E "way .*wins|budget" $f | cut -c1-160; done
for net in seed mid big; do
  timeout 110 build/mnist_bench --network $net --no-layers --tune-cache off --json $OUT/e/new-$net.json > $OUT/e/new-$net.txt 2>&1; echo "new $net rc $?"
  timeout 110 build/mnist_bench --network $net --no-layers --autotune off --json $OUT/e/off-$net.json > $OUT/e/off-$net.txt 2>&1; echo "off $net rc $?"
done
cd $OUT && tar -czf E-logs.tgz e && rm -rf e
