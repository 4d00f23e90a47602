#!/bin/bash
# Session 30, device call C: call A's masked cast with its format fixed per kernel (working tree,
# pack/build.tar.xz, probe_new) against HEAD 83c381f's (pack/build_old.tar.xz, probe_old): the GPU
# suite, racecheck on test_fp8_cast, the probe's outputs compared at four shapes, events and ncu,
# the default fp8 runs and the big fp8 bench rows. (Ran inline; moved into common.sh afterwards.)
. docs/bench/session27/common.sh
. docs/bench/session29/common.sh
. docs/bench/session30/common.sh
start30 C
gpu_suite /tmp/c
cast_outputs /tmp/c
probe_events29 /tmp/c 4096 4096 | grep -E "relu|gelu" | grep -v stream
cast_ncu /tmp/c old new
fp8_runs /tmp/c
fp8_rows /tmp/c big old new
echo "end at $SECONDS s"
