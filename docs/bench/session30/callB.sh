#!/bin/bash
# Session 30, device call B: the masked cast column by column (a thread's values of one column at
# a time, fewer registers), its format fixed per kernel, the rare counts out of line
# (column_by_column.patch on 83c381f: pack/build.tar.xz, probe_new) against HEAD 83c381f's
# (pack/build_old.tar.xz, probe_old): the GPU suite, memcheck and racecheck on test_fp8_cast, the
# probe's outputs compared at four shapes, events and ncu, the default fp8 runs and the big fp8
# bench rows of both builds. (Ran inline; moved into common.sh afterwards.)
. docs/bench/session27/common.sh
. docs/bench/session29/common.sh
. docs/bench/session30/common.sh
start30 B
CK_FORK=no timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 build/tests/test_fp8_cast > /tmp/b/memcheck.txt 2>&1
echo "memcheck test_fp8_cast rc $?: $(tail -2 /tmp/b/memcheck.txt | tr '\n' ' ')"
gpu_suite /tmp/b
cast_outputs /tmp/b
probe_events29 /tmp/b 4096 4096
cast_ncu /tmp/b old new
fp8_runs /tmp/b
fp8_rows /tmp/b big old new
echo "end at $SECONDS s"
