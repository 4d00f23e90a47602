#!/bin/bash
# Session 31, device call B: what ships (call A's tree with the cast's scale function kept as in
# HEAD, so that its sm_90 code is HEAD's but for one FMNMX's operand modifiers, and the sm_80/86
# FP8 cast a trap in builds with sm_89 code) against HEAD 0b683db: the GPU suite and racecheck,
# test_fp8_cast built with two defects (pack/bug_test_fp8_cast: GELU's zero products not counted,
# an amax of 0 written as -0), the probe's outputs and its casts under ncu, the default fp8 runs,
# every fp8 mnist_bench row of both builds (old, new, old, new).
. docs/bench/session27/common.sh
. docs/bench/session29/common.sh
. docs/bench/session30/common.sh
. docs/bench/session31/common.sh
start30 B
gpu_suite /tmp/b
timeout 60 pack/bug_test_fp8_cast > /tmp/b/bug-test.txt 2>&1
echo "test_fp8_cast with the two defects rc $?: $(grep -E '^[0-9]+%' /tmp/b/bug-test.txt)"
grep -o 'case [0-9]*[^:]*: [^(]*' /tmp/b/bug-test.txt | head -12
against_head /tmp/b
ls -l build/mnist_train pack/oldx/build/mnist_train | awk '{print $5, $9}'
echo "end at $SECONDS s"
