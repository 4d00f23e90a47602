#!/bin/bash
# Session 20, device call D (61e1ca7, the build that ships): test_step_tune (its new case: tune_auto_start's check
# on the GPU), the GPU suite, README's run; README's table, one run of scripts/bench_compare.sh --no-layers (ReLU
# rows; torchao for fp8), every mnist_bench row with --show-plans; then the big fp8 pair alone once more.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p /tmp/d
save() { tar -czf $OUT/D-logs.tgz -C /tmp d; }
gpu() { nvidia-smi --query-gpu=temperature.gpu,clocks.sm,clocks.mem,power.draw --format=csv,noheader; }
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) at start: $(gpu)"
(cd build && timeout 150 ctest -R test_step_tune --output-on-failure > /tmp/d/step_tune.txt 2>&1; echo "step_tune rc $? at $SECONDS s"; grep -E "tests passed|whole step|fresh context|held" /tmp/d/step_tune.txt | cut -c1-170)
(cd build && timeout 150 ctest -L gpu -E "test_step_tune|test_readme_run" -j4 --output-on-failure > /tmp/d/ctest.txt 2>&1; echo "suite rc $? at $SECONDS s"; grep -E "tests passed|Failed|\*\*\*" /tmp/d/ctest.txt | head)
build/mnist_train --epochs 5 > /tmp/d/readme_run.txt 2>&1; tail -1 /tmp/d/readme_run.txt
(cd build && timeout 60 ctest -R "test_readme_run" --output-on-failure) > /tmp/d/readme_test.txt 2>&1; grep -E "tests passed" /tmp/d/readme_test.txt
save
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/torchao-*.whl && export PYTHONPATH=/tmp/site
export TORCHINDUCTOR_CACHE_DIR=/tmp/tcache
R=/tmp/d/r1; mkdir -p $R; S=$SECONDS
BENCH_JSON_DIR=$R TORCH_BENCH_FLAGS="--activations relu" MNIST_TUNE_CACHE_DIR=/tmp/tune-r1 timeout $((560 - SECONDS)) scripts/bench_compare.sh build --no-layers --show-plans > $R/compare.log 2>&1
echo "bench_compare: rc $? after $((SECONDS - S)) s $(gpu)"
grep -E "^784" $R/compare.log | head -15 | cut -c1-170
save
[ $SECONDS -lt 500 ] || exit 0
R=/tmp/d/fp8-2; mkdir -p $R
BENCH_JSON_DIR=$R TORCH_BENCH_FLAGS="--networks 4096-4096:4096 --precisions fp8 --variants compiled --activations relu" \
  MNIST_TUNE_CACHE_DIR=/tmp/tune-d2 timeout $((585 - SECONDS)) scripts/bench_compare.sh build -- --no-layers --network big --precision fp8 --activation relu > $R/compare.log 2>&1
echo "fp8 pair rc $? at $SECONDS s $(gpu)"; grep -E "^784-4096-4096-10 +4096 fp8 " $R/compare.log | cut -c1-170
save
