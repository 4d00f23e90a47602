#!/bin/bash
# Session 30, device call A: the masked cast with its mask, least and amax two values an
# instruction, GELU's BF16 rounding two values an instruction, and a kernel without q's stores
# where there is no q (working tree, pack/build.tar.xz, probe_new) against HEAD 83c381f's
# (pack/build_old.tar.xz, probe_old). The GPU suite on the new build, racecheck on test_fp8_cast,
# the probe's outputs compared at four shapes, events and ncu, the default fp8 runs and the big
# fp8 bench rows of both builds. (Ran inline; moved into common.sh afterwards.)
. docs/bench/session27/common.sh
. docs/bench/session29/common.sh
. docs/bench/session30/common.sh
start30 A
gpu_suite /tmp/a
cast_outputs /tmp/a
probe_events29 /tmp/a 4096 4096
cast_ncu /tmp/a old new
fp8_runs /tmp/a
for act in relu gelu; do
  timeout 60 pack/oldx/build/mnist_train --data-dir data/mnist --epochs 5 --precision fp8 --activation $act > /tmp/a/train-fp8-$act-old.txt 2>&1
  echo "train fp8 $act old rc $?: $(tail -1 /tmp/a/train-fp8-$act-old.txt)"
done
fp8_rows /tmp/a big old new
echo "end at $SECONDS s"
