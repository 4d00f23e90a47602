#!/bin/bash
# Session 17, device call E (the build that ships, as call D): README's run and test_readme_run; the README table's
# regeneration, one run of scripts/bench_compare.sh --no-layers (every mnist_bench row, a fresh tuning cache;
# PyTorch eager, graphed and compiled+graphed for the ReLU rows, torchao for fp8).
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p /tmp/e
save() { tar -czf $OUT/E-logs.tgz -C /tmp e; }
build/mnist_train --epochs 5 > /tmp/e/readme_run.txt 2>&1; tail -1 /tmp/e/readme_run.txt
(cd build && timeout 60 ctest -R "test_readme_run" --output-on-failure) > /tmp/e/readme_test.txt 2>&1; grep -E "tests passed" /tmp/e/readme_test.txt
save
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/torchao-*.whl && export PYTHONPATH=/tmp/site
export TORCHINDUCTOR_CACHE_DIR=/tmp/tcache
R=/tmp/e/r1; mkdir -p $R; S=$SECONDS
BENCH_JSON_DIR=$R TORCH_BENCH_FLAGS="--activations relu" MNIST_TUNE_CACHE_DIR=/tmp/tune-r1 timeout 450 scripts/bench_compare.sh build --no-layers > $R/compare.log 2>&1
echo "bench_compare: rc $? after $((SECONDS - S)) s"
grep -E "^\| 784|^784" $R/compare.log | head -14 | cut -c1-170
save
