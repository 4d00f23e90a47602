#!/bin/bash
# Session 27, device call G: the tree that lands (a1d9558: FP8 and every other code as 4f33c0f's) on the
# H200: the GPU suite and test_step_tune, mnist_train --epochs 5 (FP32) and --precision fp8, mnist_bench
# --network seed --no-layers --against-off, and common.sh's probe loops run once on HEAD's probe
# (pack/probe_old) as the rewritten scripts call them.
. docs/bench/session27/common.sh
call_start G
tar -xJf pack/build.tar.xz
(cd build && timeout 250 ctest -L gpu -E test_step_tune -j4 --output-on-failure) > /tmp/g/ctest-gpu.txt 2>&1
echo "gpu suite rc $?: $(grep 'tests passed' /tmp/g/ctest-gpu.txt)"
(cd build && timeout 150 ctest -R test_step_tune --output-on-failure) > /tmp/g/ctest-step-tune.txt 2>&1
echo "test_step_tune rc $?: $(grep 'tests passed' /tmp/g/ctest-step-tune.txt) at $SECONDS s"
for p in fp32 fp8; do
  timeout 60 build/mnist_train --data-dir data/mnist --epochs 5 --precision $p > /tmp/g/train-$p.txt 2>&1
  echo "mnist_train --precision $p rc $?: $(grep '^done' /tmp/g/train-$p.txt)"
done
timeout 200 build/mnist_bench --data-dir data/mnist --no-layers --against-off --network seed --json /tmp/g/seed.json > /tmp/g/seed.txt 2>&1
echo "mnist_bench --network seed --no-layers --against-off rc $? at $SECONDS s"
grep -E "^784-100-10" /tmp/g/seed.txt
probe_events /tmp/g "grep -v stream" old
probe_ncu /tmp/g $NCU_METRICS old
python3 docs/bench/session27/ncu_summary.py /tmp/g
echo "end at $SECONDS s"
