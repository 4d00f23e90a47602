#!/bin/bash
# Session 20, device call A (472291a): why --mode auto is behind in issue 27's two rows of session 19's call C.
# 784-1024-1024-10 FP32 GELU (auto 31.39 ms = all unfused's 31.35 against fused 30.32) three processes and
# 784-4096-4096-10 TF32 GELU twice, each with --show-plans and no tuning cache (each process tunes); then one round
# of the big fp8 pair (ours, torchao compiled and graphed) to see this machine.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p /tmp/a
save() { tar -czf $OUT/A-logs.tgz -C /tmp a; }
gpu() { nvidia-smi --query-gpu=temperature.gpu,clocks.sm,clocks.mem,power.draw --format=csv,noheader; }
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) at start: $(gpu)"
for i in 1 2 3; do
  timeout 90 build/mnist_bench --data-dir data/mnist --network mid --precision fp32 --activation gelu --no-layers --tune-cache off --show-plans > /tmp/a/mid-fp32-gelu-$i.txt 2>&1
  echo "mid $i rc $? at $SECONDS s"; grep -E "^784-1024-1024-10 .*(fused|unfused|auto)" /tmp/a/mid-fp32-gelu-$i.txt | cut -c1-90
done
save
for i in 1 2; do
  timeout 150 build/mnist_bench --data-dir data/mnist --network big --precision tf32 --activation gelu --no-layers --tune-cache off --show-plans > /tmp/a/big-tf32-gelu-$i.txt 2>&1
  echo "big $i rc $? at $SECONDS s"; grep -E "^784-4096-4096-10 .*(fused|unfused|auto)" /tmp/a/big-tf32-gelu-$i.txt | cut -c1-90
done
save
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/torchao-*.whl && export PYTHONPATH=/tmp/site
export TORCHINDUCTOR_CACHE_DIR=/tmp/tcache
R=/tmp/a/fp8-1; mkdir -p $R
BENCH_JSON_DIR=$R TORCH_BENCH_FLAGS="--networks 4096-4096:4096 --precisions fp8 --variants compiled --activations relu" \
  MNIST_TUNE_CACHE_DIR=/tmp/tune-a1 timeout 150 scripts/bench_compare.sh build -- --no-layers --network big --precision fp8 --activation relu > $R/compare.log 2>&1
echo "fp8 pair rc $? at $SECONDS s $(gpu)"; grep -E "^784-4096-4096-10 +4096 fp8 " $R/compare.log | cut -c1-170
save
