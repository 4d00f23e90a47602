#!/bin/bash
# Session 4, device call V (35429f9 + test_gpu_retire following memory by its address): test_gpu_retire alone
# and beside the suite's heaviest GPU tests; README's table rows, ours and PyTorch's compiled+graphed / torchao,
# in one call (as session 3's call Q).
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
(cd build && timeout 60 ctest -R "test_gpu_retire|test_lt_precision|test_mlp_fp8$" -j3 --output-on-failure; timeout 20 ctest -R test_gpu_retire --repeat until-fail:3) > $OUT/ctest.txt 2>&1
grep -E "tests passed|\*\*\*|Assert|\.c:[0-9]+:|Failed" $OUT/ctest.txt | cut -c1-180 | tail -6
export MNIST_TUNE_CACHE_DIR=/tmp/tcv
for a in "--network seed --precision fp32" "--network seed --precision bf16" "--network mid --precision bf16" "--network big --precision bf16" "--network big --precision fp8"; do
  timeout 40 build/mnist_bench $a --activation relu --no-layers --repeats 5 2>&1 | grep -E "^784|skipping"
done > $OUT/ours.txt; cut -c1-72 $OUT/ours.txt
P="python3 scripts/bench_pytorch.py --activations relu --repeats 3 --variants compiled"
(timeout 60 $P --networks 100:256 --precisions fp32,bf16 --json $OUT/torch_seed.json; timeout 40 $P --networks 1024-1024:256 --precisions bf16 --json $OUT/torch_mid.json
 timeout 50 $P --networks 4096-4096:4096 --precisions bf16 --json $OUT/torch_big.json
 python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/torchao-*.whl && PYTHONPATH=/tmp/site timeout 60 $P --networks 4096-4096:4096 --precisions fp8 --json $OUT/torch_fp8.json) 2>&1 | grep -E "pytorch |rror" | cut -c1-120
