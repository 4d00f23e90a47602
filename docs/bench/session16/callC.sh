#!/bin/bash
# Session 16, device call C: the FP8 cast column by column (each column decoded, summed, cast and stored before
# the next: 8 values live, not 32; the tile's coordinates stepped, not divided), at five blocks per SM (96
# registers; build/, "new") and at four (pack/var), against the shipped build (2417ad7, pack/head): the GPU
# suite and test_fp8_cast under racecheck; ncu of one FP8 step of the big network per build; the big fp8 bench
# row per build.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p $OUT/c
gpu() { nvidia-smi --query-gpu=temperature.gpu,clocks.sm,clocks.mem,power.draw --format=csv,noheader; }
echo "gpu at start: $(gpu)"
(cd build && timeout 150 ctest -L gpu -E test_step_tune -j4 --output-on-failure > $OUT/c/ctest.txt 2>&1; echo "suite rc $?"; grep -E "tests passed|Failed|\*\*\*" $OUT/c/ctest.txt | head)
CK_FORK=no timeout 150 compute-sanitizer --tool racecheck --error-exitcode 1 build/tests/test_fp8_cast > $OUT/c/san_racecheck.txt 2>&1
echo "racecheck rc $? $(grep -E 'RACECHECK SUMMARY|Checks' $OUT/c/san_racecheck.txt | tr '\n' ' ')"
for b in head new var; do
  bin=build/mnist_bench; [ $b != new ] && bin=pack/$b/mnist_bench
  timeout 100 ncu --profile-from-start off --clock-control none --csv --page raw --print-units base --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum \
    $bin --profile-step --precision fp8 --network big > $OUT/c/ncu_$b.csv 2> $OUT/c/ncu_$b.err; echo "ncu $b rc=$?"
done
F="--network big --precision fp8 --activation relu --no-layers --repeats 5"
for b in new head var; do
  bin=build/mnist_bench; [ $b != new ] && bin=pack/$b/mnist_bench
  MNIST_TUNE_CACHE_DIR=/tmp/tcC-$b timeout 120 $bin $F --json $OUT/c/rows-$b.json > $OUT/c/rows-$b.txt 2>&1; echo "$b rc $? $(gpu)"; grep -E "^784-4096" $OUT/c/rows-$b.txt | cut -c1-100
done
cd $OUT && xz -9 c/ncu_*.csv && tar -czf C-logs.tgz c && rm -rf c
