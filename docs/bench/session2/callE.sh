#!/bin/bash
# Session 2, device call E: what limits the FP8 step's masked cast and its loss kernel (ncu sections), big network.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
timeout 120 ncu --profile-from-start off --clock-control none --cache-control none --kernel-name regex:"fp8_cast_kernel|xent_kernel|fp8_transpose" --launch-count 5 \
  --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis --section SchedulerStats \
  build/mnist_bench --profile-step --precision fp8 --network big > $OUT/ncu_sections.txt 2> $OUT/ncu_sections.err
grep -E "fp8_cast_kernel|xent_kernel|fp8_transpose|Duration|Memory Throughput|DRAM Throughput|Achieved Occupancy|Theoretical Occupancy|Registers Per|Stall|Warp Cycles Per Issued|L2 Hit|Block Limit|Waves Per SM|Compute \(SM\) Throughput|Issue Slots" $OUT/ncu_sections.txt | cut -c1-150 | head -120
tail -3 $OUT/ncu_sections.err
