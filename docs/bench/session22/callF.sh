#!/bin/bash
# Session 22, device call F: 3f191f2 (branch tuner-two-starts, docs/bench/session22/two-starts.patch; not on main:
# the device time left could not also cover README's table for it): after a near tie of the tuned fused and unfused
# steps, auto's way search from both. test_step_tune and the GPU suite on it; then 784-1024-1024-10 TF32 ReLU (the
# row where --autotune exact ran 7 % behind off in call C) in mnist_bench, three processes tuning afresh, exact,
# and one with --autotune off.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p /tmp/f
save() { tar -czf $OUT/F-logs.tgz -C /tmp f; }
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
(cd build && timeout 200 ctest -R test_step_tune -V > /tmp/f/step_tune.txt 2>&1; echo "step_tune rc $? at $SECONDS s"; grep -E "tests passed|held|Checks|searched from" /tmp/f/step_tune.txt | cut -c1-170 | head -12)
save
for r in 1 2 3 off; do
  tune=exact; [ $r = off ] && tune=off
  timeout 60 build/mnist_bench --data-dir data/mnist --network mid --precision tf32 --activation relu --autotune $tune \
    --no-layers --tune-cache off --show-plans > /tmp/f/bench-$r.txt 2>&1
  echo "$r: rc $? | $(grep -E '^784' /tmp/f/bench-$r.txt | awk '{printf "%s %s %s | ", $3, $6, $9}')"
  grep -E "searched from|a fresh context|whole step +fused -> unfused" /tmp/f/bench-$r.txt | tail -3 | cut -c1-150
  save
done
(cd build && timeout 200 ctest -L gpu -E "test_step_tune|test_readme_run" -j4 --output-on-failure > /tmp/f/ctest.txt 2>&1; echo "suite rc $? at $SECONDS s"; grep -E "tests passed|Failed|\*\*\*" /tmp/f/ctest.txt | head)
save
