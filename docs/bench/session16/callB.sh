#!/bin/bash
# Session 16, device call B: where the FP8 cast's time goes (ncu's warp states, scheduler and memory sections for
# the big network's fused fp8 step's two masked casts, the shipped build, pack/head), and the kernels of one
# 784-1024-1024-10 fp8 GELU step of a72cb34 (pack/old) against the shipped build (its fused and auto rows ran
# 1.013x and 1.014x a72cb34's in session 15).
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
mkdir -p $OUT/b
timeout 150 ncu --profile-from-start off --clock-control none -k regex:fp8_cast_kernel --launch-count 2 \
  --section SpeedOfLight --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats \
  pack/head/mnist_bench --profile-step --precision fp8 --network big > $OUT/b/ncu_sections.txt 2>&1; echo "sections rc $?"
grep -E "Duration|Throughput|Warp Cycles Per Issued|Issued Warp|No Eligible|Stall|Achieved Occupancy|Eligible Warps" $OUT/b/ncu_sections.txt | head -40
for b in old head; do
  timeout 100 ncu --profile-from-start off --clock-control none --csv --page raw --print-units base --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
    pack/$b/mnist_bench --profile-step --precision fp8 --network mid --activation gelu > $OUT/b/ncu_mid_$b.csv 2> $OUT/b/ncu_mid_$b.err; echo "ncu mid $b rc=$?"
done
timeout 100 ncu --profile-from-start off --clock-control none --csv --page raw --metrics smsp__pcsamp_warps_issue_stalled_barrier,smsp__pcsamp_warps_issue_stalled_long_scoreboard,smsp__pcsamp_warps_issue_stalled_membar -k regex:fp8_cast_kernel --launch-count 2 pack/head/mnist_bench --profile-step --precision fp8 --network big > $OUT/b/ncu_stalls.csv 2>&1; echo "stalls rc $?"
tar -czf $OUT/B-logs.tgz -C $OUT b && rm -rf $OUT/b
