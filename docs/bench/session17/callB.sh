#!/bin/bash
# Session 17, device call B: call A's cast (pack/cur) against the same with its two stagings used in turn, one
# barrier a tile (pack/db4), and that at five blocks per SM (build/, "db5": 96 registers, 112 bytes of stack on
# sm_90): the GPU suite and test_fp8_cast under racecheck (db5); ncu of one FP8 step of the big network, the three
# alternated twice; the big fp8 ReLU bench row of each, alternated twice.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p /tmp/b
save() { tar -czf $OUT/B-logs.tgz -C /tmp b; }
gpu() { nvidia-smi --query-gpu=temperature.gpu,clocks.sm,clocks.mem,power.draw --format=csv,noheader; }
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) at start: $(gpu)"
(cd build && timeout 150 ctest -L gpu -E test_step_tune -j4 --output-on-failure > /tmp/b/ctest.txt 2>&1; echo "suite rc $?"; grep -E "tests passed|Failed|\*\*\*" /tmp/b/ctest.txt | head)
CK_FORK=no timeout 150 compute-sanitizer --tool racecheck --error-exitcode 1 build/tests/test_fp8_cast > /tmp/b/san_racecheck.txt 2>&1
echo "racecheck rc $? $(grep -E 'RACECHECK SUMMARY|Checks' /tmp/b/san_racecheck.txt | tr '\n' ' ')"
save
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
for b in cur db4 db5 cur2 db42 db52; do
  case $b in cur*) bin=pack/cur/mnist_bench ;; db4*) bin=pack/db4/mnist_bench ;; *) bin=build/mnist_bench ;; esac
  timeout 100 ncu --profile-from-start off --clock-control none --csv --page raw --print-units base --metrics $M \
    $bin --profile-step --precision fp8 --network big --activation relu > /tmp/b/ncu_$b.csv 2> /tmp/b/ncu_$b.err; echo "ncu $b rc=$?"
done
save
F="--network big --precision fp8 --activation relu --no-layers --repeats 5"
for b in cur db4 db5 cur2 db42 db52; do
  case $b in cur*) bin=pack/cur/mnist_bench ;; db4*) bin=pack/db4/mnist_bench ;; *) bin=build/mnist_bench ;; esac
  MNIST_TUNE_CACHE_DIR=/tmp/tcB-$b timeout 120 $bin $F --json /tmp/b/rows-$b.json > /tmp/b/rows-$b.txt 2>&1; echo "$b rc $? $(gpu)"; grep -E "^784-4096" /tmp/b/rows-$b.txt | cut -c1-90
done
save
