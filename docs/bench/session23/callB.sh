#!/bin/bash
# Session 23, device call B (the build of call A): README's table, scripts/bench_compare.sh --no-layers --show-plans
# once (ReLU rows for PyTorch; torchao for fp8); then every row of 784-1024-1024-10 and 784-100-10 under --autotune
# exact and off, round 2 (rows_lib.sh).
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
CALL=b
mkdir -p /tmp/b
save() { tar -czf $OUT/B-logs.tgz -C /tmp b; }
. docs/bench/session23/rows_lib.sh
gpu() { nvidia-smi --query-gpu=temperature.gpu,clocks.sm,clocks.mem,power.draw --format=csv,noheader; }
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) at start: $(gpu)"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/torchao-*.whl && export PYTHONPATH=/tmp/site
export TORCHINDUCTOR_CACHE_DIR=/tmp/tcache
R=/tmp/b/r1; mkdir -p $R; S=$SECONDS
BENCH_JSON_DIR=$R TORCH_BENCH_FLAGS="--activations relu" MNIST_TUNE_CACHE_DIR=/tmp/tune-r1 timeout 400 scripts/bench_compare.sh build --no-layers --show-plans > $R/compare.log 2>&1
echo "bench_compare: rc $? after $((SECONDS - S)) s $(gpu)"
grep -E "^784" $R/compare.log | head -15 | cut -c1-170
grep -E "^creation orders" $R/compare.log | sed -E 's/fingerprints.*: /: /' | sort | uniq -c
save
rows 2 mid seed
