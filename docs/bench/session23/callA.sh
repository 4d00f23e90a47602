#!/bin/bash
# Session 23, device call A (the build that ships: the two-start way search, the copy's entry in its report, the
# bench's JSON naming each row's tuned set): README's run as the call's first process and test_readme_run; the GPU
# suite and test_step_tune; every mnist_bench row under --autotune exact and off, round 1 (rows_lib.sh); issue 27's
# default-run targets (scripts/ab_tune.sh --rounds 5, every mode's first run against --autotune off with the cycle).
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
CALL=a
mkdir -p /tmp/a
save() { tar -czf $OUT/A-logs.tgz -C /tmp a; }
. docs/bench/session23/rows_lib.sh
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
build/mnist_train --epochs 5 > /tmp/a/readme_run.txt 2>&1; tail -1 /tmp/a/readme_run.txt
(cd build && timeout 60 ctest -R "test_readme_run" --output-on-failure) > /tmp/a/readme_test.txt 2>&1; grep -E "tests passed" /tmp/a/readme_test.txt
(cd build && timeout 150 ctest -L gpu -E "test_step_tune|test_readme_run" -j4 --output-on-failure > /tmp/a/ctest.txt 2>&1; echo "suite rc $? at $SECONDS s"; grep -E "tests passed|Failed|\*\*\*" /tmp/a/ctest.txt | head)
(cd build && timeout 150 ctest -R test_step_tune -V > /tmp/a/step_tune.txt 2>&1; echo "step_tune rc $? at $SECONDS s"; grep -E "tests passed|held|Checks" /tmp/a/step_tune.txt | cut -c1-170 | head -8)
save
rows 1 seed mid big
B=build/mnist_train
timeout $((590 - SECONDS)) scripts/ab_tune.sh --rounds 5 --log /tmp/a/ab -- off="$B --autotune off --context-cycle" first="$B --tune-cache off" \
  off-u="$B --mode unfused --autotune off --context-cycle" first-u="$B --mode unfused --tune-cache off" \
  off-a="$B --mode auto --autotune off" first-a="$B --mode auto --tune-cache off --show-plans" > /tmp/a/ab.txt 2>&1
echo "ab rc $? at $SECONDS s"; tail -8 /tmp/a/ab.txt
save
