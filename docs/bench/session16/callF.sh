#!/bin/bash
# Session 16, device call F (2b17465, the build that ships: 1c17765's cast with GELU's aux stride in size_t): the
# GPU suite and test_step_tune; test_fp8_cast under racecheck; ncu of one FP8 step of the big network, ReLU and
# GELU (instructions and times of the casts); the default network's fp8 run (issue 28: >= 98.0 % in 5 epochs).
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p $OUT/f
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version,temperature.gpu --format=csv,noheader)"
(cd build && timeout 150 ctest -L gpu -E test_step_tune -j4 --output-on-failure > $OUT/f/ctest.txt 2>&1; echo "suite rc $?"; grep -E "tests passed|Failed|\*\*\*" $OUT/f/ctest.txt | head)
(cd build && timeout 100 ctest -R test_step_tune -V > $OUT/f/step_tune.txt 2>&1; echo "step_tune rc $?"; grep -E "tests passed|Checks" $OUT/f/step_tune.txt | tail -2)
CK_FORK=no timeout 90 compute-sanitizer --tool racecheck --error-exitcode 1 build/tests/test_fp8_cast > $OUT/f/san_racecheck.txt 2>&1
echo "racecheck rc $? $(grep -E 'RACECHECK SUMMARY|Checks' $OUT/f/san_racecheck.txt | tr '\n' ' ')"
for act in relu gelu; do
  timeout 60 ncu --profile-from-start off --clock-control none --csv --page raw --print-units base --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum \
    build/mnist_bench --profile-step --precision fp8 --network big --activation $act > $OUT/f/ncu_$act.csv 2> $OUT/f/ncu_$act.err; echo "ncu $act rc=$?"
done
timeout 60 build/mnist_train --precision fp8 --epochs 5 > $OUT/f/fp8-default.txt 2>&1; echo "fp8 default: $(tail -1 $OUT/f/fp8-default.txt)"
cd $OUT && xz -9 f/ncu_*.csv && tar -czf F-logs.tgz f && rm -rf f
