#!/bin/bash
# Session 27, device call A: fp8_cast with its loads at a cursor (no 64-bit product a tile), without q's
# stores where there is no q (layer 1), and two tile_t/sums buffers (one barrier a tile, not two) where
# 48 KB hold them: the working tree's build (pack/build.tar.xz, pack/probe_new) against HEAD 4f33c0f's
# layers (pack/probe_old). The fp8 GPU tests, racecheck on test_fp8_cast, outputs compared byte for byte,
# events and ncu alternated, and the default fp8 run's digits.
. docs/bench/session27/common.sh
call_start A
tar -xJf pack/build.tar.xz
(cd build && timeout 150 ctest -L gpu -R "fp8" -j4 --output-on-failure) > /tmp/a/ctest-fp8.txt 2>&1
echo "fp8 gpu tests rc $?: $(grep 'tests passed' /tmp/a/ctest-fp8.txt)"
racecheck_cast /tmp/a
probe_measure /tmp/a "cat" $NCU_METRICS old new
probe_kernel_names /tmp/a old new
timeout 60 build/mnist_train --data-dir data/mnist --epochs 5 --precision fp8 > /tmp/a/train-fp8.txt 2>&1
echo "train fp8 rc $?: $(tail -1 /tmp/a/train-fp8.txt)"
echo "end at $SECONDS s"
