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
CK_FORK=no timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 build/tests/test_fp8_cast > /tmp/a/racecheck.txt 2>&1
echo "racecheck test_fp8_cast rc $?: $(tail -2 /tmp/a/racecheck.txt | tr '\n' ' ')"
probe_compare /tmp/a old new
probe_events /tmp/a "cat" old new
probe_ncu /tmp/a $NCU_METRICS old new
python3 docs/bench/session27/ncu_summary.py /tmp/a
head -3 /tmp/a/ncu-new-1.csv | cut -c1-300 > /tmp/a/ncu-head.txt
grep -o '"[^"]*fp8_cast_kernel[^"]*"' /tmp/a/ncu-old-1.csv | sort | uniq -c | head
grep -o '"[^"]*fp8_cast_kernel[^"]*"' /tmp/a/ncu-new-1.csv | sort | uniq -c | head
timeout 60 build/mnist_train --data-dir data/mnist --epochs 5 --precision fp8 > /tmp/a/train-fp8.txt 2>&1
echo "train fp8 rc $?: $(tail -1 /tmp/a/train-fp8.txt)"
echo "end at $SECONDS s"
