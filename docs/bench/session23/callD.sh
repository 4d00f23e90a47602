#!/bin/bash
# Session 23, device call D (the build that ships, after the cold review's fixes: the tie's record names the first
# search's start, comments, the moved count by its own function): README's run as the call's first process,
# test_readme_run, the GPU suite and test_step_tune.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p /tmp/d
save() { tar -czf $OUT/D-logs.tgz -C /tmp d; }
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
build/mnist_train --epochs 5 > /tmp/d/readme_run.txt 2>&1; tail -1 /tmp/d/readme_run.txt
(cd build && timeout 30 ctest -R "test_readme_run" --output-on-failure) > /tmp/d/readme_test.txt 2>&1; grep -E "tests passed" /tmp/d/readme_test.txt
save
(cd build && timeout 100 ctest -L gpu -E "test_step_tune|test_readme_run" -j4 --output-on-failure > /tmp/d/ctest.txt 2>&1; echo "suite rc $? at $SECONDS s"; grep -E "tests passed|Failed|\*\*\*" /tmp/d/ctest.txt | head)
save
(cd build && timeout 70 ctest -R test_step_tune -V > /tmp/d/step_tune.txt 2>&1; echo "step_tune rc $? at $SECONDS s"; grep -E "tests passed|held|Checks|searched from" /tmp/d/step_tune.txt | cut -c1-170 | head -8)
save
