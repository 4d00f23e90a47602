#!/bin/bash
# Session 19, device call A: where the FP8 cast's time goes. ncu --set full of the cast kernels of one fused and one
# unfused FP8 step of the big network (ReLU, then GELU) on the build that ships (8b4faf7 = 615a9c4's code); then
# the casts' durations, registers and instructions for three sm_90-only variants of layers/fp8_cast.cu:
# pack/b5 (ReLU and unmasked casts bounded to five blocks per SM: 96 registers, 32 bytes of stack),
# pack/b6 (six: 80 registers, 96 bytes of stack) and pack/nz (the zero counts removed: a probe of how much the
# instruction count matters, not a build to ship); then the big fp8 ReLU row per build, alternated.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p /tmp/a
save() { tar -czf $OUT/A-logs.tgz -C /tmp a; }
gpu() { nvidia-smi --query-gpu=temperature.gpu,clocks.sm,clocks.mem,power.draw --format=csv,noheader; }
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) at start: $(gpu)"
for act in relu gelu; do
  timeout 200 ncu --profile-from-start off --clock-control none -k regex:fp8_cast_kernel --set full --csv --page raw \
    --print-units base build/mnist_bench --profile-step --precision fp8 --network big --activation $act \
    > /tmp/a/full_$act.csv 2> /tmp/a/full_$act.err; echo "full $act rc=$? at $SECONDS s"
  save
done
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem
bin_of() { case $1 in new*) echo build/mnist_bench ;; *) echo pack/${1%2}/mnist_bench ;; esac; }
for b in new b5 b6 nz new2 b52 b62 nz2; do
  timeout 60 ncu --profile-from-start off --clock-control none -k regex:fp8_cast_kernel --csv --page raw --print-units base \
    --metrics $M $(bin_of $b) --profile-step --precision fp8 --network big --activation relu > /tmp/a/ncu_$b.csv 2> /tmp/a/ncu_$b.err
  echo "ncu $b rc=$? at $SECONDS s"
done
save
for b in new b5 b6 nz new2 b52 b62 nz2; do
  F="--network big --precision fp8 --activation relu --no-layers --repeats 5"
  MNIST_TUNE_CACHE_DIR=/tmp/tcA-${b%2} timeout 60 $(bin_of $b) $F --json /tmp/a/rows-$b.json > /tmp/a/rows-$b.txt 2>&1
  echo "$b rc $? at $SECONDS s $(gpu)"; grep -E "^784-4096" /tmp/a/rows-$b.txt | cut -c1-100
done
save
