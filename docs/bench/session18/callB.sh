#!/bin/bash
# Session 18, device call B: call A's ring with the ReLU mask copied one 4-byte word a thread (its column
# c0 + rg, shared by the four threads of a column quad after a warp barrier) instead of four (build/), against
# the shipped cast (pack/cur), a variant whose ReLU mask words are plain loads a tile ahead spread by shuffles
# (pack/mreg) and one whose GELU cast runs four blocks an SM (pack/g4; both sm_90 only): the GPU suite,
# test_step_tune, test_fp8_cast under racecheck and memcheck; ncu of one FP8 step of the big network, ReLU
# alternated twice, GELU once each; the big fp8 ReLU and GELU bench rows per build, alternated; the default fp8 run.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p /tmp/b
save() { tar -czf $OUT/B-logs.tgz -C /tmp b; }
gpu() { nvidia-smi --query-gpu=temperature.gpu,clocks.sm,clocks.mem,power.draw --format=csv,noheader; }
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) at start: $(gpu)"
(cd build && timeout 150 ctest -L gpu -E test_step_tune -j4 --output-on-failure > /tmp/b/ctest.txt 2>&1; echo "suite rc $?"; grep -E "tests passed|Failed|\*\*\*" /tmp/b/ctest.txt | head)
(cd build && timeout 150 ctest -R test_step_tune --output-on-failure > /tmp/b/step_tune.txt 2>&1; echo "step_tune rc $?"; grep -E "tests passed|Failed" /tmp/b/step_tune.txt | head -3)
for tool in racecheck memcheck; do
  CK_FORK=no timeout 150 compute-sanitizer --tool $tool --error-exitcode 1 build/tests/test_fp8_cast > /tmp/b/san_$tool.txt 2>&1
  echo "$tool rc $? $(grep -E 'SUMMARY|Checks' /tmp/b/san_$tool.txt | tr '\n' ' ')"
done
save
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum
bin_of() { case $1 in cur*) echo pack/cur/mnist_bench ;; mreg*) echo pack/mreg/mnist_bench ;; g4*) echo pack/g4/mnist_bench ;; *) echo build/mnist_bench ;; esac; }
for b in new cur mreg new2 cur2 mreg2 newgelu curgelu g4gelu; do
  act=relu; case $b in *gelu) act=gelu ;; esac
  timeout 100 ncu --profile-from-start off --clock-control none --csv --page raw --print-units base --metrics $M \
    $(bin_of $b) --profile-step --precision fp8 --network big --activation $act > /tmp/b/ncu_$b.csv 2> /tmp/b/ncu_$b.err; echo "ncu $b rc=$?"
done
save
for b in new cur mreg new2 cur2 newgelu curgelu g4gelu; do
  act=relu; case $b in *gelu) act=gelu ;; esac
  F="--network big --precision fp8 --activation $act --no-layers --repeats 5"
  MNIST_TUNE_CACHE_DIR=/tmp/tcB-$b timeout 120 $(bin_of $b) $F --json /tmp/b/rows-$b.json > /tmp/b/rows-$b.txt 2>&1; echo "$b rc $? $(gpu)"; grep -E "^784-4096" /tmp/b/rows-$b.txt | cut -c1-100
done
save
timeout 60 build/mnist_train --precision fp8 --epochs 5 > /tmp/b/fp8-default.txt 2>&1; echo "fp8 default: $(grep done: /tmp/b/fp8-default.txt)"
save
