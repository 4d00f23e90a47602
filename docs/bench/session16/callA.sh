#!/bin/bash
# Session 16, device call A: the FP8 cast's loads staged in shared memory by cp.async (three tiles ahead) against
# the build that shipped (2417ad7, pack/head) and a variant (pack/var: ReLU two tiles ahead at five blocks per SM,
# GELU four). The GPU suite and test_step_tune; test_fp8_cast under racecheck and memcheck; ncu of one FP8 step of
# the big network per build; the big fp8 bench row per build; the default network's auto and fused first runs
# against a72cb34's auto (pack/old), 5 rounds, for the first run's wall clock.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p $OUT/a
gpu() { nvidia-smi --query-gpu=temperature.gpu,clocks.sm,clocks.mem,power.draw --format=csv,noheader; }
echo "gpu at start: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader), $(gpu)"
save() { tar -czf $OUT/A-logs.tgz -C $OUT a; }
(cd build && timeout 150 ctest -L gpu -E test_step_tune -j4 --output-on-failure > $OUT/a/ctest.txt 2>&1; echo "suite rc $?"; grep -E "tests passed|Failed|\*\*\*" $OUT/a/ctest.txt | head)
(cd build && timeout 120 ctest -R test_step_tune -V > $OUT/a/step_tune.txt 2>&1; echo "step_tune rc $?"; grep -E "tests passed|Checks" $OUT/a/step_tune.txt | tail -2)
for tool in racecheck memcheck; do
  CK_FORK=no timeout 150 compute-sanitizer --tool $tool --error-exitcode 1 build/tests/test_fp8_cast > $OUT/a/san_$tool.txt 2>&1
  echo "$tool rc $? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|Checks' $OUT/a/san_$tool.txt | tr '\n' ' ')"
done
save
for b in head new var; do
  bin=build/mnist_bench; [ $b != new ] && bin=pack/$b/mnist_bench
  timeout 100 ncu --profile-from-start off --clock-control none --csv --page raw --print-units base --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
    $bin --profile-step --precision fp8 --network big > $OUT/a/ncu_$b.csv 2> $OUT/a/ncu_$b.err; echo "ncu $b rc=$?"
  grep -E "fp8_cast_kernel|fp8_transpose" $OUT/a/ncu_$b.csv | awk -F'","' '{print substr($5,1,50), $(NF-2), $(NF-1), $NF}' | head -8
done
save
F="--network big --precision fp8 --activation relu --no-layers --repeats 5"
for b in new var head; do
  bin=build/mnist_bench; [ $b != new ] && bin=pack/$b/mnist_bench
  MNIST_TUNE_CACHE_DIR=/tmp/tcA-$b timeout 120 $bin $F --json $OUT/a/rows-$b.json > $OUT/a/rows-$b.txt 2>&1; echo "$b rc $? $(gpu)"; grep -E "^784-4096" $OUT/a/rows-$b.txt | cut -c1-100
done
save
B=build/mnist_train
timeout 120 scripts/ab_tune.sh --rounds 5 --log $OUT/a/ab -- first-a="$B --mode auto --tune-cache off --show-plans" old-a="pack/old/mnist_train --mode auto" \
  first="$B --tune-cache off --show-plans" > $OUT/a/ab.txt 2>&1
echo "ab rc $?"; tail -6 $OUT/a/ab.txt
grep -h "chosen in" $OUT/a/ab/first-a.*.txt | cut -c1-200
grep -h "kept\b\|set kept" $OUT/a/ab/first-a.*.txt | cut -c1-250 | head -5
cd $OUT && xz -9 a/ncu_*.csv && tar -czf A-logs.tgz a && rm -rf a
