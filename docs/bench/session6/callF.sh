#!/bin/bash
# Session 6, device call F (aea77b4, the code of 539f51d): docs/logs from this build (the BF16 default run per mode
# with --log); one run of every mnist_bench row (a fresh tuning cache, --no-layers) to set against calls A-B's
# three runs of 75725da; torchao compiled+graphed for the fp8 GELU rows of 784-1024-1024-10 and 784-4096-4096-10
# (calls A-B ran GELU's PyTorch eager and graphed only).
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p $OUT/f/logs
for m in fused unfused auto; do
  build/mnist_train --epochs 5 --precision bf16 --mode $m --log $OUT/f/logs/bf16-$m.csv > $OUT/f/logs/bf16-$m.txt 2>&1
  grep "^done" $OUT/f/logs/bf16-$m.txt | cut -c1-110
done
S=$SECONDS
MNIST_TUNE_CACHE_DIR=/tmp/tune-f timeout 200 build/mnist_bench --no-layers --json $OUT/f/ours-head.json > $OUT/f/bench.txt 2>&1
echo "mnist_bench: rc $? after $((SECONDS - S)) s"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/torchao-*.whl && export PYTHONPATH=/tmp/site
S=$SECONDS
timeout 150 python3 scripts/bench_pytorch.py --networks 1024-1024:256,4096-4096:4096 --precisions fp8 --activations gelu --variants compiled --json $OUT/f/torch_fp8_gelu.json > $OUT/f/torch_fp8_gelu.log 2>&1
echo "torchao gelu compiled: rc $? after $((SECONDS - S)) s"; grep -E "^pytorch|rror" $OUT/f/torch_fp8_gelu.log | cut -c1-120
grep -E "^784-(1024|4096).*gelu fp8 +on" $OUT/f/bench.txt | cut -c1-72
cd $OUT && tar -czf F-logs.tgz f && rm -rf f
