#!/bin/bash
# Session 28, device call E (the tree that lands, after call D: --show-plans names the budget a search's; a test
# case merged): the GPU suite, test_step_tune alone, the default auto run's report.
source docs/bench/session27/common.sh
call_start E
tar -xJf pack/build.tar.xz
S=$SECONDS
(cd build && timeout 150 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > /tmp/e/suite.txt 2>&1
(cd build && timeout 90 ctest -R "test_step_tune" -V) >> /tmp/e/suite.txt 2>&1
echo "suite in $((SECONDS - S)) s:"
grep -E "tests passed|\*\*\*|Assert|\.c:[0-9]+:|Failed|off's set -> tuned|a fresh context" /tmp/e/suite.txt | cut -c1-180 | tail -10
timeout 30 build/mnist_train --data-dir data/mnist --epochs 5 --mode auto --tune-cache off --show-plans > /tmp/e/auto.txt 2>&1
echo "auto run rc $?"; grep -E "^done|evidence:|^   the " /tmp/e/auto.txt | cut -c1-200
echo "end at $SECONDS s"
