#!/bin/bash
# Session 31, device call D: 22d5f43 (the trap line from the build's cubins and PTX; its sm_90
# code is call B's and C's): the GPU suite, racecheck on test_fp8_cast, the default fp8 runs.
. docs/bench/session27/common.sh
. docs/bench/session30/common.sh
call_start D
tar -xJf pack/build.tar.xz
gpu_suite /tmp/d
fp8_runs /tmp/d
echo "end at $SECONDS s"
