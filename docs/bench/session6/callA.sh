#!/bin/bash
# Session 6, device call A (75725da, HEAD): the GPU suite and test_step_tune; README's run; the default fp8 run;
# issue 29's regeneration, run 1: scripts/bench_compare.sh (every mnist_bench row, a fresh tuning cache; PyTorch
# eager, graph and compiled+graphed for every ReLU row, torchao for fp8), then bench_pytorch.py's eager and graph
# variants of the GELU rows (compiled GELU rows do not fit the session's device time).
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
build/mnist_train --epochs 5 > $OUT/readme_run.txt 2>&1; tail -1 $OUT/readme_run.txt
(cd build && timeout 200 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > $OUT/ctest.txt 2>&1
(cd build && timeout 60 ctest -R "test_step_tune" --output-on-failure) >> $OUT/ctest.txt 2>&1
grep -E "tests passed|\*\*\*|behind|Failed" $OUT/ctest.txt | cut -c1-160 | tail -8
build/mnist_train --epochs 5 --precision fp8 2>&1 | grep "^done" | cut -c1-110
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/torchao-*.whl && export PYTHONPATH=/tmp/site
export TORCHINDUCTOR_CACHE_DIR=$PWD/tcache MNIST_TUNE_CACHE_DIR=/tmp/tune-r1
R=$OUT/r1; mkdir -p $R; S=$SECONDS
BENCH_JSON_DIR=$R TORCH_BENCH_FLAGS="--activations relu" timeout 400 scripts/bench_compare.sh build > $R/compare.log 2>&1
echo "bench_compare: rc $? after $((SECONDS - S)) s"; S=$SECONDS
timeout 90 python3 scripts/bench_pytorch.py --activations gelu --variants eager,graph --json $R/torch_gelu.json > $R/torch_gelu.log 2>&1
echo "gelu eager/graph: rc $? after $((SECONDS - S)) s"
grep -E "^\| 784|^784" $R/compare.log | grep -E "fp8|bf16" | head -20 | cut -c1-150
cd $OUT && tar -czf A-logs.tgz ctest.txt r1 && rm -rf ctest.txt r1
