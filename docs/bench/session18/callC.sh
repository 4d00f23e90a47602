#!/bin/bash
# Session 18, device call C (615a9c4, the build that ships: call B's one-word ReLU ring, each thread's mask word in a slot
# of its own, every cast at four blocks per SM as pack/g4's GELU cast, the cast's checks moved to
# layers/fp8_cast_check.c): the GPU suite and test_step_tune; test_fp8_cast under racecheck and memcheck; the
# default network's fp8 run (issue 28: >= 98.0 % in 5 epochs); README's run and test_readme_run; every fp8 row
# of a72cb34 (pack/old), of 863df6a (the cast before, pack/cur) and of this build, a process per network,
# alternated (issue 28: each <= 1.01x its a72cb34 median); then the README table's regeneration, one run of
# scripts/bench_compare.sh --no-layers (a fresh tuning cache; PyTorch eager, graphed and compiled+graphed for the
# ReLU rows, torchao for fp8).
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
(cd build && timeout 120 ctest -R test_step_tune -V > /tmp/c/step_tune.txt 2>&1; echo "step_tune rc $?"; grep -E "tests passed|Checks" /tmp/c/step_tune.txt | tail -2)
for tool in racecheck memcheck; do
  CK_FORK=no timeout 150 compute-sanitizer --tool $tool --error-exitcode 1 build/tests/test_fp8_cast > /tmp/c/san_$tool.txt 2>&1
  echo "$tool rc $? $(grep -E 'SUMMARY|Checks' /tmp/c/san_$tool.txt | tr '\n' ' ')"
done
timeout 60 build/mnist_train --precision fp8 --epochs 5 > /tmp/c/fp8-default.txt 2>&1; echo "fp8 default: $(grep '^done' /tmp/c/fp8-default.txt)"
echo "verified at $SECONDS s"
save
for net in big mid seed; do
  for b in old cur new; do
    bin=build/mnist_bench; [ $b != new ] && bin=pack/$b/mnist_bench
    MNIST_TUNE_CACHE_DIR=/tmp/tcC-$b timeout 60 $bin --network $net --precision fp8 --no-layers --json /tmp/c/fp8-$b-$net.json > /tmp/c/fp8-$b-$net.txt 2>&1; echo "$b $net rc $? at $SECONDS s $(gpu)"
  done
  save
done
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/torchao-*.whl && export PYTHONPATH=/tmp/site
export TORCHINDUCTOR_CACHE_DIR=/tmp/tcache
R=/tmp/c/r1; mkdir -p $R; S=$SECONDS
BENCH_JSON_DIR=$R TORCH_BENCH_FLAGS="--activations relu" MNIST_TUNE_CACHE_DIR=/tmp/tune-r1 timeout $((575 - SECONDS)) scripts/bench_compare.sh build --no-layers > $R/compare.log 2>&1
echo "bench_compare: rc $? after $((SECONDS - S)) s"
grep -E "^784" $R/compare.log | head -15 | cut -c1-170
save
