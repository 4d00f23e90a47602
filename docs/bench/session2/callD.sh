#!/bin/bash
# Session 2, device call D (HEAD c477e70): every GPU suite; README's run; the default run off / first / cached in every mode;
# 784-4096-4096-10 bf16 and fp8, ours and PyTorch's / torchao's (graph, compiled) in one call.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
B=build/mnist_train
$B --epochs 5 > $OUT/readme_run.txt 2>&1; tail -2 $OUT/readme_run.txt
(cd build && timeout 200 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > $OUT/ctest.txt 2>&1
(cd build && timeout 60 ctest -R "test_step_tune" --output-on-failure) >> $OUT/ctest.txt 2>&1
grep -E "tests passed|\*\*\*|Assert|fingerprint|behind" $OUT/ctest.txt | cut -c1-200 | tail -10
for m in fused unfused auto; do timeout 30 $B --mode $m --epochs 1 --tune-cache-dir /tmp/tc-$m > /dev/null 2>&1; done
timeout 150 scripts/ab_tune.sh --rounds 3 --log $OUT/ab -- off="$B --autotune off" first="$B --tune-cache off" cached="$B --tune-cache-dir /tmp/tc-fused" \
  off-u="$B --mode unfused --autotune off" first-u="$B --mode unfused --tune-cache off" cached-u="$B --mode unfused --tune-cache-dir /tmp/tc-unfused" \
  off-a="$B --mode auto --autotune off" first-a="$B --mode auto --tune-cache off" cached-a="$B --mode auto --tune-cache-dir /tmp/tc-auto" 2>&1 | tee $OUT/ab.txt
export MNIST_TUNE_CACHE_DIR=/tmp/tcb
for a in "--precision bf16" "--precision fp8"; do timeout 90 build/mnist_bench --network big $a --activation relu --no-layers --repeats 5 2>&1 | grep -E "^784"; done | tee $OUT/ours_big.txt | cut -c1-100
P="python3 scripts/bench_pytorch.py --activations relu --repeats 3"
timeout 120 $P --networks 4096-4096:4096 --precisions bf16 --variants graph,compiled --json $OUT/torch_big.json 2>&1 | grep -E "pytorch|rror" | cut -c1-150
(python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/torchao-*.whl && PYTHONPATH=/tmp/site timeout 150 $P --networks 4096-4096:4096 --precisions fp8 --variants graph,compiled --json $OUT/torch_fp8.json) 2>&1 | grep -E "pytorch|rror" | cut -c1-150
timeout 40 build/mnist_bench --network big --precision fp8 --activation relu --no-layers --repeats 5 2>&1 | grep -E "^784" | tee $OUT/ours_fp8_again.txt | cut -c1-100
cd $OUT && tar -czf logsD.tgz ab ctest.txt && rm -rf ab
