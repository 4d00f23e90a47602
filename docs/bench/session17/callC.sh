#!/bin/bash
# Session 17, device call C: call A's cast (build/, "cur") against the same with the tile after next prefetched
# into the L2 (prefetch.global.L2, even row groups; pack/pf): ncu of one FP8 step of the big network, alternated
# twice; ncu's warp-state and scheduler sections for cur's ReLU casts; and the big network's TF32 GELU rows
# with --show-plans twice (auto ran 1.019x min(fused, unfused) there in session 16's call E).
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p /tmp/c
save() { tar -czf $OUT/C-logs.tgz -C /tmp c; }
gpu() { nvidia-smi --query-gpu=temperature.gpu,clocks.sm,clocks.mem,power.draw --format=csv,noheader; }
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) at start: $(gpu)"
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
for b in cur pf cur2 pf2; do
  case $b in pf*) bin=pack/pf/mnist_bench ;; *) bin=build/mnist_bench ;; esac
  timeout 100 ncu --profile-from-start off --clock-control none --csv --page raw --print-units base --metrics $M \
    $bin --profile-step --precision fp8 --network big --activation relu > /tmp/c/ncu_$b.csv 2> /tmp/c/ncu_$b.err; echo "ncu $b rc=$?"
done
save
timeout 120 ncu --profile-from-start off --clock-control none --kernel-name regex:"fp8_cast_kernel<__nv_bfloat16, \(fp8_mask\)1" --launch-count 2 \
  --section WarpStateStats --section SchedulerStats --section Occupancy --section MemoryWorkloadAnalysis \
  build/mnist_bench --profile-step --precision fp8 --network big --activation relu > /tmp/c/ncu_sections.txt 2>&1; echo "ncu sections rc=$?"
grep -E "Stall|Warp Cycles|Issued Warp|Eligible|Active Warps|Achieved Occ" /tmp/c/ncu_sections.txt | head -30
save
for k in 1 2; do
  MNIST_TUNE_CACHE_DIR=/tmp/tcC-$k timeout 150 build/mnist_bench --network big --precision tf32 --activation gelu --no-layers --show-plans --json /tmp/c/tf32gelu-$k.json > /tmp/c/tf32gelu-$k.txt 2>&1
  echo "tf32 gelu $k rc $? $(gpu)"; grep -E "^784-4096" /tmp/c/tf32gelu-$k.txt | cut -c1-90
done
save
