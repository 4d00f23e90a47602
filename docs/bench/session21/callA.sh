#!/bin/bash
# Session 21, device call A (probe, sm_90 builds in pack/probe.tar.xz): the FP8 cast a column at a time (each
# thread holds one column's values; the rare counts read the tile from the ring again), at 4, 5 and 6 blocks per
# SM (new4, new5, new6), against HEAD 25da314 (base). test_fp8_cast on each new build (racecheck and memcheck on
# new6); the default network's fp8 runs, ReLU and GELU (the digits must be base's); ncu of one big fp8 step's
# casts, ReLU and GELU; the big fp8 rows, a process per build, alternated.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/probe.tar.xz -C pack
P=pack/probe
mkdir -p /tmp/a
save() { tar -czf $OUT/A-logs.tgz -C /tmp a; }
gpu() { nvidia-smi --query-gpu=temperature.gpu,clocks.sm,clocks.mem,power.draw --format=csv,noheader; }
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) at start: $(gpu)"
for v in new4 new5 new6; do
  CK_FORK=no timeout 60 $P/$v/test_fp8_cast > /tmp/a/test_fp8_cast-$v.txt 2>&1; echo "test_fp8_cast $v rc $? $(grep -E '^[0-9]+%' /tmp/a/test_fp8_cast-$v.txt)"
done
for tool in racecheck memcheck; do
  CK_FORK=no timeout 120 compute-sanitizer --tool $tool --error-exitcode 1 $P/new6/test_fp8_cast > /tmp/a/san_$tool.txt 2>&1
  echo "$tool rc $? $(grep -E 'SUMMARY|Checks' /tmp/a/san_$tool.txt | tr '\n' ' ')"
done
for act in relu gelu; do
  for v in base new4 new6; do
    timeout 60 $P/$v/mnist_train --precision fp8 --activation $act --epochs 5 > /tmp/a/fp8-$act-$v.txt 2>&1; echo "fp8 $act $v: $(grep '^done' /tmp/a/fp8-$act-$v.txt)"
  done
done
echo "verified at $SECONDS s"
save
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__registers_per_thread,smsp__inst_executed.sum,launch__grid_size,sm__warps_active.avg.pct_of_peak_sustained_active
ncu_round() {
  for act in relu gelu; do
    for v in base new4 new5 new6; do
      timeout 60 ncu --profile-from-start off --clock-control none -k regex:fp8_cast_kernel --csv --page raw --print-units base \
        --metrics $M $P/$v/mnist_bench --profile-step --precision fp8 --network big --activation $act > /tmp/a/ncu$1-$v-$act.csv 2> /tmp/a/ncu$1-$v-$act.err
      echo "ncu $1 $v $act rc=$? at $SECONDS s"
    done
  done
  save
}
bench_round() {
  for v in base new4 new5 new6; do
    MNIST_TUNE_CACHE_DIR=/tmp/tc-$v timeout 60 $P/$v/mnist_bench --network big --precision fp8 --no-layers > /tmp/a/big$1-$v.txt 2>&1
    echo "big $1 $v rc $? at $SECONDS s: $(grep -E '^784-4096-4096-10 +4096 +(fused|unfused|auto)' /tmp/a/big$1-$v.txt | awk '{printf "%s %s | ", $3, $6}')"
  done
  save
}
ncu_round 1
bench_round 1
[ $SECONDS -lt 330 ] && ncu_round 2
[ $SECONDS -lt 480 ] && bench_round 2
echo "end at $SECONDS s"
