#!/bin/bash
# Session 19, device call C (47ef9ee, the build that ships: GELU' from one exponential, the ReLU flush count skipped
# where nothing can flush, the ring moved to fp8_cast_load.cuh): README's run and test_readme_run; the GPU suite and
# test_step_tune; test_fp8_cast under racecheck and memcheck; the default network's fp8 runs, ReLU and GELU; ncu of
# one big FP8 step's casts, ReLU and GELU, this build and 8b4faf7's (pack/base, sm_90); every fp8 row of a72cb34
# (pack/old) and of this build, a process per network, alternated (issue 28: each <= 1.01x its a72cb34 median); then
# README's table, one run of scripts/bench_compare.sh --no-layers (ReLU rows; torchao for fp8).
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p /tmp/c
save() { tar -czf $OUT/C-logs.tgz -C /tmp c; }
gpu() { nvidia-smi --query-gpu=temperature.gpu,clocks.sm,clocks.mem,power.draw --format=csv,noheader; }
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) at start: $(gpu)"
build/mnist_train --epochs 5 > /tmp/c/readme_run.txt 2>&1; tail -1 /tmp/c/readme_run.txt
(cd build && timeout 60 ctest -R "test_readme_run" --output-on-failure) > /tmp/c/readme_test.txt 2>&1; grep -E "tests passed" /tmp/c/readme_test.txt
(cd build && timeout 150 ctest -L gpu -E "test_step_tune|test_readme_run" -j4 --output-on-failure > /tmp/c/ctest.txt 2>&1; echo "suite rc $?"; grep -E "tests passed|Failed|\*\*\*" /tmp/c/ctest.txt | head)
(cd build && timeout 120 ctest -R test_step_tune --output-on-failure > /tmp/c/step_tune.txt 2>&1; echo "step_tune rc $?"; grep -E "tests passed" /tmp/c/step_tune.txt | tail -1)
for tool in racecheck memcheck; do
  CK_FORK=no timeout 150 compute-sanitizer --tool $tool --error-exitcode 1 build/tests/test_fp8_cast > /tmp/c/san_$tool.txt 2>&1
  echo "$tool rc $? $(grep -E 'SUMMARY|Checks' /tmp/c/san_$tool.txt | tr '\n' ' ')"
done
for act in relu gelu; do
  timeout 60 build/mnist_train --precision fp8 --activation $act --epochs 5 > /tmp/c/fp8-$act.txt 2>&1; echo "fp8 $act: $(grep '^done' /tmp/c/fp8-$act.txt)"
done
echo "verified at $SECONDS s"
save
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,launch__registers_per_thread,smsp__inst_executed.sum
for act in relu gelu; do
  for b in base new; do
    bin=build/mnist_bench; [ $b = base ] && bin=pack/base/mnist_bench
    timeout 60 ncu --profile-from-start off --clock-control none -k regex:fp8_cast_kernel --csv --page raw --print-units base \
      --metrics $M $bin --profile-step --precision fp8 --network big --activation $act > /tmp/c/ncu_$b-$act.csv 2> /tmp/c/ncu_$b-$act.err
    echo "ncu $b $act rc=$? at $SECONDS s"
  done
done
save
for net in big mid seed; do
  for b in old new; do
    bin=build/mnist_bench; [ $b = old ] && bin=pack/old/mnist_bench
    MNIST_TUNE_CACHE_DIR=/tmp/tcC-$b timeout 60 $bin --network $net --precision fp8 --no-layers --json /tmp/c/fp8-$b-$net.json > /tmp/c/fp8-$b-$net.txt 2>&1; echo "$b $net rc $? at $SECONDS s $(gpu)"
  done
  save
done
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/torchao-*.whl && export PYTHONPATH=/tmp/site
export TORCHINDUCTOR_CACHE_DIR=/tmp/tcache
R=/tmp/c/r1; mkdir -p $R; S=$SECONDS
BENCH_JSON_DIR=$R TORCH_BENCH_FLAGS="--activations relu" MNIST_TUNE_CACHE_DIR=/tmp/tune-r1 timeout $((585 - SECONDS)) scripts/bench_compare.sh build --no-layers > $R/compare.log 2>&1
echo "bench_compare: rc $? after $((SECONDS - S)) s"
grep -E "^784" $R/compare.log | head -15 | cut -c1-170
save
