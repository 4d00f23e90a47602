#!/bin/bash
# Session 3, device call Q (the build that ships): README's run; README's table rows, ours and PyTorch's compiled+graphed, in one call.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
build/mnist_train --epochs 5 > $OUT/readme_run.txt 2>&1; cat $OUT/readme_run.txt
export MNIST_TUNE_CACHE_DIR=/tmp/tcq
for a in "--network seed --precision fp32" "--network seed --precision bf16" "--network mid --precision bf16" "--network big --precision bf16" "--network big --precision fp8"; do
  timeout 40 build/mnist_bench $a --activation relu --no-layers --repeats 5 2>&1 | grep -E "^784|skipping"
done > $OUT/ours.txt; cut -c1-72 $OUT/ours.txt
P="python3 scripts/bench_pytorch.py --activations relu --repeats 3 --variants compiled"
(timeout 60 $P --networks 100:256 --precisions fp32,bf16 --json $OUT/torch_seed.json; timeout 40 $P --networks 1024-1024:256 --precisions bf16 --json $OUT/torch_mid.json
 timeout 50 $P --networks 4096-4096:4096 --precisions bf16 --json $OUT/torch_big.json
 python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/torchao-*.whl && PYTHONPATH=/tmp/site timeout 60 $P --networks 4096-4096:4096 --precisions fp8 --json $OUT/torch_fp8.json) 2>&1 | grep -E "pytorch |rror" | cut -c1-120
