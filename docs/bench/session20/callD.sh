#!/bin/bash
# Session 20, device call D (4d3bf9d): README's table, one run of scripts/bench_compare.sh --no-layers (ReLU rows;
# torchao for fp8), every mnist_bench row with --show-plans; then the big fp8 pair alone once more.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p /tmp/d
save() { tar -czf $OUT/D-logs.tgz -C /tmp d; }
gpu() { nvidia-smi --query-gpu=temperature.gpu,clocks.sm,clocks.mem,power.draw --format=csv,noheader; }
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) at start: $(gpu)"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/torchao-*.whl && export PYTHONPATH=/tmp/site
export TORCHINDUCTOR_CACHE_DIR=/tmp/tcache
R=/tmp/d/r1; mkdir -p $R; S=$SECONDS
BENCH_JSON_DIR=$R TORCH_BENCH_FLAGS="--activations relu" MNIST_TUNE_CACHE_DIR=/tmp/tune-r1 timeout 480 scripts/bench_compare.sh build --no-layers --show-plans > $R/compare.log 2>&1
echo "bench_compare: rc $? after $((SECONDS - S)) s $(gpu)"
grep -E "^784" $R/compare.log | head -15 | cut -c1-170
save
R=/tmp/d/fp8-2; mkdir -p $R
BENCH_JSON_DIR=$R TORCH_BENCH_FLAGS="--networks 4096-4096:4096 --precisions fp8 --variants compiled --activations relu" \
  MNIST_TUNE_CACHE_DIR=/tmp/tune-d2 timeout $((585 - SECONDS)) scripts/bench_compare.sh build -- --no-layers --network big --precision fp8 --activation relu > $R/compare.log 2>&1
echo "fp8 pair rc $? at $SECONDS s $(gpu)"; grep -E "^784-4096-4096-10 +4096 fp8 " $R/compare.log | cut -c1-170
save
