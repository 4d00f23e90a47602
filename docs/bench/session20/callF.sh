#!/bin/bash
# Session 20, device call F (410c011, the build that ships: the search moved to step_search.c): README's run as the
# call's first process, test_readme_run; the command of test_step_tune's new case on 472291a (pack/pre, sm_90:
# before tune_auto_start) to see that case's assertions fail there; the whole GPU suite (35 tests with -j4, then test_step_tune alone: 37 with the README test).
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p /tmp/f
save() { tar -czf $OUT/F-logs.tgz -C /tmp f; }
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
build/mnist_train --epochs 5 > /tmp/f/readme_run.txt 2>&1; tail -1 /tmp/f/readme_run.txt
(cd build && timeout 60 ctest -R "test_readme_run" --output-on-failure) > /tmp/f/readme_test.txt 2>&1; grep -E "tests passed" /tmp/f/readme_test.txt
MNIST_TUNE_AUTO_NARROW=0.5 timeout 60 pack/pre/mnist_train --data-dir data/mnist --mode auto --epochs 1 --tune-cache off --show-plans > /tmp/f/pre-narrow.txt 2>&1
echo "472291a rc $?: note lines $(grep -c 'unfused won by under' /tmp/f/pre-narrow.txt), fresh-context start rows $(grep -c 'a fresh context        start -> chosen' /tmp/f/pre-narrow.txt)"
grep -E "whole step +fused -> unfused|fingerprint" /tmp/f/pre-narrow.txt | cut -c1-120
save
(cd build && timeout 200 ctest -L gpu -E "test_step_tune|test_readme_run" -j4 --output-on-failure > /tmp/f/ctest.txt 2>&1; echo "suite rc $? at $SECONDS s"; grep -E "tests passed|Failed|\*\*\*" /tmp/f/ctest.txt | head)
(cd build && timeout 150 ctest -R test_step_tune -V > /tmp/f/step_tune.txt 2>&1; echo "step_tune rc $? at $SECONDS s"; grep -E "tests passed|fresh context +start|held" /tmp/f/step_tune.txt | cut -c1-170)
save
