#!/bin/bash
# Session 27, device call E: fp8_cast with layer 1's least |x| taken two BF16 values at a time from the
# copied words (min.xorsign.abs.bf16x2, sm_86 on) and a kernel without q's stores and their addresses where
# there is no q (layer 1): the working tree's build (pack/build.tar.xz, pack/probe_pl) against HEAD
# 4f33c0f's layers (pack/probe_old). The GPU suite and test_step_tune, racecheck on test_fp8_cast, outputs compared byte
# for byte, events and ncu alternated, the default fp8 runs' digits (ReLU and GELU).
. docs/bench/session27/common.sh
call_start E
tar -xJf pack/build.tar.xz
(cd build && timeout 250 ctest -L gpu -E test_step_tune -j4 --output-on-failure) > /tmp/e/ctest-gpu.txt 2>&1
echo "gpu suite rc $?: $(grep 'tests passed' /tmp/e/ctest-gpu.txt)"
(cd build && timeout 150 ctest -R test_step_tune --output-on-failure) > /tmp/e/ctest-step-tune.txt 2>&1
echo "test_step_tune rc $?: $(grep 'tests passed' /tmp/e/ctest-step-tune.txt) at $SECONDS s"
racecheck_cast /tmp/e
probe_measure /tmp/e "cat" $NCU_METRICS old pl
probe_kernel_names /tmp/e old pl
for act in relu gelu; do
  timeout 60 build/mnist_train --data-dir data/mnist --epochs 5 --precision fp8 --activation $act > /tmp/e/train-fp8-$act.txt 2>&1
  echo "train fp8 $act rc $?: $(grep '^done' /tmp/e/train-fp8-$act.txt)"
done
echo "end at $SECONDS s"
