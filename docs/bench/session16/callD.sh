#!/bin/bash
# Session 16, device call D: the FP8 cast with the tile's coordinates stepped instead of divided twice a tile,
# and each column's load addresses a stride on from the first's (build/, "new"), against the shipped build
# (2417ad7, pack/head): the GPU suite, test_fp8_cast under racecheck; ncu of one FP8 step of the big network,
# the two builds alternated twice (instructions executed, time); the big fp8 bench row per build.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p $OUT/d
gpu() { nvidia-smi --query-gpu=temperature.gpu,clocks.sm,clocks.mem,power.draw --format=csv,noheader; }
echo "gpu at start: $(gpu)"
(cd build && timeout 150 ctest -L gpu -E test_step_tune -j4 --output-on-failure > $OUT/d/ctest.txt 2>&1; echo "suite rc $?"; grep -E "tests passed|Failed|\*\*\*" $OUT/d/ctest.txt | head)
CK_FORK=no timeout 150 compute-sanitizer --tool racecheck --error-exitcode 1 build/tests/test_fp8_cast > $OUT/d/san_racecheck.txt 2>&1
echo "racecheck rc $? $(grep -E 'RACECHECK SUMMARY|Checks' $OUT/d/san_racecheck.txt | tr '\n' ' ')"
for b in head new head2 new2; do
  bin=build/mnist_bench; case $b in head*) bin=pack/head/mnist_bench ;; esac
  timeout 100 ncu --profile-from-start off --clock-control none --csv --page raw --print-units base --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum \
    $bin --profile-step --precision fp8 --network big > $OUT/d/ncu_$b.csv 2> $OUT/d/ncu_$b.err; echo "ncu $b rc=$?"
done
F="--network big --precision fp8 --activation relu --no-layers --repeats 5"
for b in new head; do
  bin=build/mnist_bench; [ $b != new ] && bin=pack/$b/mnist_bench
  MNIST_TUNE_CACHE_DIR=/tmp/tcD-$b timeout 120 $bin $F --json $OUT/d/rows-$b.json > $OUT/d/rows-$b.txt 2>&1; echo "$b rc $? $(gpu)"; grep -E "^784-4096" $OUT/d/rows-$b.txt | cut -c1-100
done
cd $OUT && xz -9 d/ncu_*.csv && tar -czf D-logs.tgz d && rm -rf d
