#!/bin/bash
# Session 5, device call B (d46e4eb): what holds the FP8 step's masked cast (ncu sections) and what the step
# tuner sees of the big network's FP8 plans (--show-plans of a first run).
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
timeout 150 ncu --profile-from-start off --clock-control none --kernel-name regex:"fp8_cast_kernel|fp8_transpose" --launch-count 4 \
  --section SpeedOfLight --section MemoryWorkloadAnalysis --section WarpStateStats --section Occupancy --section LaunchStats --section SchedulerStats \
  build/mnist_bench --profile-step --precision fp8 --network big > $OUT/ncu_sections.txt 2>&1; echo "ncu rc=$?"
timeout 60 build/mnist_train --hidden 4096,4096 --batch 4096 --precision fp8 --epochs 2 --tune-cache off --show-plans > $OUT/plans_big_fp8.txt 2>&1; echo "plans rc=$?"
grep -E "chosen in|done:" $OUT/plans_big_fp8.txt
