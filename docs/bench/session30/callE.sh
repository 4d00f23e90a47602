#!/bin/bash
# Session 30, device call E: what ships (pack/build.tar.xz, probe_new) against HEAD 83c381f
# (pack/build_old.tar.xz, probe_old): the GPU suite and racecheck, test_fp8_cast built with one
# dispatch defect (pack/bug_test_fp8_cast: the cast without q always E4M3), the probe's outputs at
# four shapes and its casts under ncu, the default fp8 runs, every fp8 mnist_bench row of both
# builds (old, then new) compared by rows_ratio.py.
. docs/bench/session27/common.sh
. docs/bench/session29/common.sh
. docs/bench/session30/common.sh
start30 E
gpu_suite /tmp/e
timeout 60 pack/bug_test_fp8_cast > /tmp/e/bug-test.txt 2>&1
echo "test_fp8_cast with the defect rc $?: $(grep -E '^[0-9]+%' /tmp/e/bug-test.txt) $(grep -m2 -o 'case [0-9]*[^:]*: [^,]*' /tmp/e/bug-test.txt | tr '\n' ' ')"
cast_outputs /tmp/e
cast_ncu /tmp/e old new
fp8_runs /tmp/e
fp8_rows /tmp/e all old new
python3 docs/bench/session30/rows_ratio.py /tmp/e/bench-fp8-old-*.txt -- /tmp/e/bench-fp8-new-*.txt
echo "end at $SECONDS s"
