#!/bin/bash
# Session 20, device call E (the test_step_tune refactor: run_auto_plans): test_step_tune on the GPU, verbose, so
# that its new case's lines (the note, the fresh context's row) are kept.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p /tmp/e
(cd build && timeout 200 ctest -R test_step_tune -V > /tmp/e/step_tune.txt 2>&1; echo "step_tune rc $?")
grep -E "tests passed|unfused won by under|fresh context +start|whole step +fused -> unfused|held|ways alone" /tmp/e/step_tune.txt | cut -c1-200
tar -czf $OUT/E-logs.tgz -C /tmp e
