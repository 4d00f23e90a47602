#!/bin/bash
# Session 27, device call E: fp8_cast with layer 1's least |x| taken two BF16 values at a time from the
# copied words (min.xorsign.abs.bf16x2, sm_86 on) and a kernel without q's stores and their addresses where
# there is no q (layer 1): the working tree's build (pack/build.tar.xz, pack/probe_pl) against HEAD
# 4f33c0f's layers (pack/probe_old). The GPU suite and test_step_tune, racecheck on test_fp8_cast, outputs compared byte
# for byte, events and ncu alternated, the default fp8 runs' digits (ReLU and GELU).
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
mkdir -p /tmp/e
save() { tar -czf $OUT/E-logs.tgz -C /tmp e; }
trap save EXIT
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
tar -xJf pack/build.tar.xz
(cd build && timeout 250 ctest -L gpu -E test_step_tune -j4 --output-on-failure) > /tmp/e/ctest-gpu.txt 2>&1
echo "gpu suite rc $?: $(grep 'tests passed' /tmp/e/ctest-gpu.txt)"
(cd build && timeout 150 ctest -R test_step_tune --output-on-failure) > /tmp/e/ctest-step-tune.txt 2>&1
echo "test_step_tune rc $?: $(grep 'tests passed' /tmp/e/ctest-step-tune.txt) at $SECONDS s"
CK_FORK=no timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 build/tests/test_fp8_cast > /tmp/e/racecheck.txt 2>&1
echo "racecheck test_fp8_cast rc $?: $(tail -2 /tmp/e/racecheck.txt | tr '\n' ' ')"
for v in old pl; do timeout 60 pack/probe_$v 3 /tmp/e/dump-$v > /tmp/e/dump-$v.txt 2>&1; echo "dump $v rc $?"; done
for c in relu_l1 gelu_l1 relu_l2; do cmp /tmp/e/dump-old-$c.bin /tmp/e/dump-pl-$c.bin && echo "$c: old and new outputs byte for byte SAME"; done
rm -f /tmp/e/*.bin
. docs/bench/session27/common.sh
probe_events /tmp/e "cat" old pl
probe_ncu /tmp/e $NCU_METRICS old pl
python3 docs/bench/session27/ncu_summary.py /tmp/e
head -3 /tmp/e/ncu-pl-1.csv | cut -c1-300 > /tmp/e/ncu-head.txt
grep -o '"[^"]*fp8_cast_kernel[^"]*"' /tmp/e/ncu-old-1.csv | sort | uniq -c | head
grep -o '"[^"]*fp8_cast_kernel[^"]*"' /tmp/e/ncu-pl-1.csv | sort | uniq -c | head
for act in relu gelu; do
  timeout 60 build/mnist_train --data-dir data/mnist --epochs 5 --precision fp8 --activation $act > /tmp/e/train-fp8-$act.txt 2>&1
  echo "train fp8 $act rc $?: $(grep '^done' /tmp/e/train-fp8-$act.txt)"
done
echo "end at $SECONDS s"
