#!/bin/bash
# Session 29, device call E (efec907, the code that lands): README's run as the call's first process and
# test_readme_run; the GPU suite with test_step_tune (its new case: the default network's whole search stops at
# off's set, every way row timed); the same test_step_tune built against 346de38's slots rebuild (pack/bug.tar.xz:
# efec907 without acc1b08's kept times alone), which must fail; then README's table with the time left.
source docs/bench/session27/common.sh
call_start E
tar -xJf pack/build.tar.xz
tar -xJf pack/bug.tar.xz
readme_run /tmp/e
S=$SECONDS
(cd build && timeout 200 ctest -L gpu -E "test_readme_run" -j4 --output-on-failure) >> /tmp/e/suite.txt 2>&1
echo "suite in $((SECONDS - S)) s:"
grep -E "tests passed|\*\*\*|Assert|\.c:[0-9]+:|Failed" /tmp/e/suite.txt | cut -c1-180 | tail -8
S=$SECONDS
MNIST_DIR=$PWD/data/mnist timeout 120 pack/bugsrc/build/tests/test_step_tune > /tmp/e/step-tune-bug.txt 2>&1
echo "test_step_tune against the old rebuild: rc $? in $((SECONDS - S)) s"
grep -E "way row without|[0-9]+%: Checks|:F:|:E:" /tmp/e/step-tune-bug.txt | cut -c1-200 | head -6
tar -czf $OUT/E-logs-early.tgz -C /tmp e
readme_table /tmp/e/compare $((430 - SECONDS)) /tmp/tune-e
echo "end at $SECONDS s"
