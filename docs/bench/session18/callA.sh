#!/bin/bash
# Session 18, device call A: the FP8 cast's loads as cp.async copies into a ring of shared memory (two tiles in
# flight a block, build/: four blocks an SM; pack/b5: five, sm_90 only) against the shipped cast (863df6a,
# pack/cur: the next tile's loads in registers): the GPU suite, test_fp8_cast under racecheck and memcheck; ncu
# of one FP8 step of the big network, ReLU alternated twice, GELU once; the big fp8 ReLU bench row per build,
# alternated twice.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p $OUT/a
save() { tar -czf $OUT/A-logs.tgz -C $OUT a; }
gpu() { nvidia-smi --query-gpu=temperature.gpu,clocks.sm,clocks.mem,power.draw --format=csv,noheader; }
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) at start: $(gpu)"
(cd build && timeout 150 ctest -L gpu -E test_step_tune -j4 --output-on-failure > $OUT/a/ctest.txt 2>&1; echo "suite rc $?"; grep -E "tests passed|Failed|\*\*\*" $OUT/a/ctest.txt | head)
for tool in racecheck memcheck; do
  CK_FORK=no timeout 150 compute-sanitizer --tool $tool --error-exitcode 1 build/tests/test_fp8_cast > $OUT/a/san_$tool.txt 2>&1
  echo "$tool rc $? $(grep -E 'SUMMARY|Checks' $OUT/a/san_$tool.txt | tr '\n' ' ')"
done
save
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
bin_of() { case $1 in cur*) echo pack/cur/mnist_bench ;; b5*) echo pack/b5/mnist_bench ;; *) echo build/mnist_bench ;; esac; }
for b in new cur b5 new2 cur2 b52 newgelu curgelu; do
  act=relu; case $b in *gelu) act=gelu ;; esac
  timeout 100 ncu --profile-from-start off --clock-control none --csv --page raw --print-units base --metrics $M \
    $(bin_of $b) --profile-step --precision fp8 --network big --activation $act > $OUT/a/ncu_$b.csv 2> $OUT/a/ncu_$b.err; echo "ncu $b rc=$?"
done
save
F="--network big --precision fp8 --activation relu --no-layers --repeats 5"
for b in new cur b5 new2 cur2 b52; do
  MNIST_TUNE_CACHE_DIR=/tmp/tcA-$b timeout 120 $(bin_of $b) $F --json $OUT/a/rows-$b.json > $OUT/a/rows-$b.txt 2>&1; echo "$b rc $? $(gpu)"; grep -E "^784-4096" $OUT/a/rows-$b.txt | cut -c1-110
done
save
timeout 60 build/mnist_train --precision fp8 --epochs 5 > $OUT/a/fp8-default.txt 2>&1; echo "fp8 default: $(tail -1 $OUT/a/fp8-default.txt)"
save
