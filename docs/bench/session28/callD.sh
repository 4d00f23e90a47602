#!/bin/bash
# Session 28, device call D (the tree that lands): README's run as the call's first process and test_readme_run,
# the GPU suite, test_step_tune alone; README's table: scripts/bench_compare.sh --no-layers --show-plans once
# (ReLU rows for PyTorch; torchao 0.18.0 from .whl/ for fp8).
source docs/bench/session27/common.sh
call_start D
tar -xJf pack/build.tar.xz
rm -rf $HOME/.cache/mnist-epilogs
timeout 30 build/mnist_train --data-dir data/mnist --epochs 5 > /tmp/d/readme_run.txt 2>&1; echo "readme run rc $?"
grep "^done" /tmp/d/readme_run.txt
S=$SECONDS
(cd build && timeout 60 ctest -R "test_readme_run" --output-on-failure) > /tmp/d/suite.txt 2>&1
(cd build && timeout 150 ctest -L gpu -E "test_step_tune|test_readme_run" -j4 --output-on-failure) >> /tmp/d/suite.txt 2>&1
(cd build && timeout 90 ctest -R "test_step_tune" -V) >> /tmp/d/suite.txt 2>&1
echo "suite in $((SECONDS - S)) s:"
grep -E "tests passed|\*\*\*|Assert|\.c:[0-9]+:|Failed|off's set -> tuned|a fresh context" /tmp/d/suite.txt | cut -c1-180 | tail -12
readme_table /tmp/d/compare 380 /tmp/tune-d # common.sh (moved there afterwards)
echo "end at $SECONDS s"
