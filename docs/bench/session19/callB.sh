#!/bin/bash
# Session 19, device call B: the FP8 cast's GELU' from one exponential (pack/A), then also the flush count skipped
# where no value can flush (pack/B), then also two stagings a tile where shared memory holds them, one barrier a tile
# (build/, every architecture: the change as it would ship), against the build before (pack/base, 8b4faf7; A, B and
# base sm_90 only): the GPU suite, test_step_tune, test_fp8_cast under racecheck and memcheck; ncu of one big FP8
# step, ReLU and GELU, per build; the big fp8 ReLU and GELU rows per build, alternated twice; the default network's
# fp8 runs, ReLU and GELU, on build/ and on pack/base.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p /tmp/b
save() { tar -czf $OUT/B-logs.tgz -C /tmp b; }
gpu() { nvidia-smi --query-gpu=temperature.gpu,clocks.sm,clocks.mem,power.draw --format=csv,noheader; }
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) at start: $(gpu)"
(cd build && timeout 150 ctest -L gpu -E "test_step_tune|test_readme_run" -j4 --output-on-failure > /tmp/b/ctest.txt 2>&1; echo "suite rc $?"; grep -E "tests passed|Failed|\*\*\*" /tmp/b/ctest.txt | head)
(cd build && timeout 120 ctest -R test_step_tune --output-on-failure > /tmp/b/step_tune.txt 2>&1; echo "step_tune rc $?"; grep -E "tests passed" /tmp/b/step_tune.txt | tail -1)
for tool in racecheck memcheck; do
  CK_FORK=no timeout 150 compute-sanitizer --tool $tool --error-exitcode 1 build/tests/test_fp8_cast > /tmp/b/san_$tool.txt 2>&1
  echo "$tool rc $? $(grep -E 'SUMMARY|Checks' /tmp/b/san_$tool.txt | tr '\n' ' ')"
done
save
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__registers_per_thread,smsp__inst_executed.sum
bin_of() { case $1 in new*) echo build/mnist_bench ;; *) echo pack/${1%2}/mnist_bench ;; esac; }
for act in relu gelu; do
  for b in base A B new; do
    timeout 60 ncu --profile-from-start off --clock-control none -k regex:fp8_cast_kernel --csv --page raw --print-units base \
      --metrics $M $(bin_of $b) --profile-step --precision fp8 --network big --activation $act > /tmp/b/ncu_$b-$act.csv 2> /tmp/b/ncu_$b-$act.err
    echo "ncu $b $act rc=$? at $SECONDS s"
  done
done
save
for act in relu gelu; do
  for b in base A B new base2 A2 B2 new2; do
    F="--network big --precision fp8 --activation $act --no-layers --repeats 5"
    MNIST_TUNE_CACHE_DIR=/tmp/tcB-${b%2}-$act timeout 60 $(bin_of $b) $F --json /tmp/b/rows-$b-$act.json > /tmp/b/rows-$b-$act.txt 2>&1
    echo "$b $act rc $? at $SECONDS s $(gpu)"; grep -E "^784-4096" /tmp/b/rows-$b-$act.txt | cut -c1-100
  done
  save
done
for act in relu gelu; do
  for t in build/mnist_train pack/base/mnist_train; do
    n=$(basename $(dirname $t)); timeout 60 $t --precision fp8 --activation $act --epochs 5 > /tmp/b/fp8-$n-$act.txt 2>&1
    echo "fp8 $n $act: $(grep '^done' /tmp/b/fp8-$n-$act.txt)"
  done
done
save
