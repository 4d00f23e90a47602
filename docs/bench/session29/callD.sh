#!/bin/bash
# Session 29, device call D (b03e93c, the code that lands): README's run as the call's first process and
# test_readme_run, the GPU suite, test_step_tune -V, and the default network's auto run with --show-plans
# (where its whole search stops at off's set: the line's place and the way rows' times alone).
source docs/bench/session27/common.sh
call_start D
tar -xJf pack/build.tar.xz
readme_run /tmp/d # common.sh (moved there afterwards)
S=$SECONDS
(cd build && timeout 200 ctest -L gpu -E "test_step_tune|test_readme_run" -j4 --output-on-failure) >> /tmp/d/suite.txt 2>&1
(cd build && timeout 120 ctest -R "test_step_tune" -V) > /tmp/d/step-tune.txt 2>&1
echo "suite in $((SECONDS - S)) s:"
grep -E "tests passed|\*\*\*|Assert|\.c:[0-9]+:|Failed" /tmp/d/suite.txt /tmp/d/step-tune.txt | cut -c1-180 | tail -8
grep -E "no algorithm moved|ways alone" /tmp/d/step-tune.txt | head -4
timeout 30 build/mnist_train --data-dir data/mnist --epochs 5 --tune-cache off --mode auto --show-plans > /tmp/d/auto-plans.txt 2>&1
echo "auto --show-plans rc $?: $(tail -1 /tmp/d/auto-plans.txt)"
sed -n '/^step tuner: fingerprint/,/^$/p' /tmp/d/auto-plans.txt | grep -E " way |the whole search|no algorithm moved|a fresh context|alone" | cut -c1-160
echo "end at $SECONDS s"
