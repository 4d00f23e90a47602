#!/bin/bash
# Session 31, device call A: the working tree (pack/build.tar.xz, probe_new) against HEAD 0b683db
# (pack/build_old.tar.xz, probe_old): the GPU suite (test_step_tune's final parse, test_fp8_cast's
# new cases) and racecheck, the new test_fp8_cast built against HEAD's kernels
# (pack/bug_test_fp8_cast), the probe's outputs at four shapes and its casts under ncu, the default
# fp8 runs, every fp8 mnist_bench row of both builds (old, new, old, new).
. docs/bench/session27/common.sh
. docs/bench/session29/common.sh
. docs/bench/session30/common.sh
. docs/bench/session31/common.sh
start30 A
gpu_suite /tmp/a
timeout 60 pack/bug_test_fp8_cast > /tmp/a/bug-test.txt 2>&1
echo "new test_fp8_cast on HEAD's kernels rc $?: $(grep -E '^[0-9]+%' /tmp/a/bug-test.txt) $(grep -m3 -o 'case [0-9]*[^:]*: [^,]*' /tmp/a/bug-test.txt | tr '\n' ' ')"
(cd build && timeout 120 ctest -R test_step_tune --output-on-failure) > /tmp/a/step-tune.txt 2>&1
echo "test_step_tune again rc $?: $(grep 'tests passed' /tmp/a/step-tune.txt)"
against_head /tmp/a
echo "end at $SECONDS s"
