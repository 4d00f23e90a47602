#!/bin/bash
# Session 5, device call E (call C's build): where the masked FP8 cast spends its issue slots and stalls
# (ncu: instruction statistics, warp states, source counters) at the big network.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
timeout 150 ncu --profile-from-start off --clock-control none --kernel-name regex:"fp8_cast_kernel|xent_kernel" --launch-count 3 \
  --section InstructionStats --section WarpStateStats --section SourceCounters --section ComputeWorkloadAnalysis --print-details all \
  build/mnist_bench --profile-step --precision fp8 --network big > $OUT/ncu_source.txt 2>&1; echo "ncu rc=$?"
timeout 150 ncu --profile-from-start off --clock-control none --kernel-name regex:"fp8_cast_kernel" --launch-count 1 --page source --csv --print-source sass \
  build/mnist_bench --profile-step --precision fp8 --network big > $OUT/ncu_sass.csv 2>&1; echo "ncu rc=$?"
cd $OUT && xz -9 ncu_sass.csv
