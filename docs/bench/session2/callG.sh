#!/bin/bash
# Session 2, device call G (HEAD b905e3f, the build that ships): README's run (into README, then its test); every GPU suite;
# the default run off / first / cached; our rows and PyTorch's best (graph, compiled) per precision; every fp8 row against a72cb34's.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee $OUT/gpu.txt
B=build/mnist_train
$B --epochs 5 > $OUT/readme_run.txt 2>&1; tail -1 $OUT/readme_run.txt
python3 pack/put_block.py README.md $OUT/readme_run.txt
(cd build && timeout 150 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > $OUT/ctest.txt 2>&1
(cd build && timeout 60 ctest -R "test_step_tune" --output-on-failure) >> $OUT/ctest.txt 2>&1
grep -E "tests passed|\*\*\*|Assert|fingerprint|behind" $OUT/ctest.txt | cut -c1-200 | tail -8
for m in fused unfused auto; do timeout 30 $B --mode $m --epochs 1 --tune-cache-dir /tmp/tc-$m > /dev/null 2>&1; done
timeout 120 scripts/ab_tune.sh --rounds 3 --log $OUT/ab -- off="$B --autotune off" first="$B --tune-cache off" cached="$B --tune-cache-dir /tmp/tc-fused" \
  off-u="$B --mode unfused --autotune off" first-u="$B --mode unfused --tune-cache off" cached-u="$B --mode unfused --tune-cache-dir /tmp/tc-unfused" \
  off-a="$B --mode auto --autotune off" first-a="$B --mode auto --tune-cache off" cached-a="$B --mode auto --tune-cache-dir /tmp/tc-auto" 2>&1 | tee $OUT/ab.txt
export MNIST_TUNE_CACHE_DIR=/tmp/tcb
for a in "--network seed --precision fp32" "--network seed --precision bf16" "--network mid --precision bf16" "--network big --precision bf16" "--network big --precision fp8"; do
  timeout 60 build/mnist_bench $a --activation relu --no-layers --repeats 5 2>&1 | grep -E "^784|skipping"
done | tee $OUT/ours.txt | cut -c1-100
P="python3 scripts/bench_pytorch.py --activations relu --repeats 3"
timeout 100 $P --networks 100:256 --precisions fp32,bf16 --variants graph,compiled --json $OUT/torch_seed.json 2>&1 | grep -E "pytorch |rror" | cut -c1-120
timeout 60 $P --networks 1024-1024:256 --precisions bf16 --variants graph,compiled --json $OUT/torch_mid.json 2>&1 | grep -E "pytorch |rror" | cut -c1-120
timeout 80 $P --networks 4096-4096:4096 --precisions bf16 --variants graph,compiled --json $OUT/torch_big.json 2>&1 | grep -E "pytorch |rror" | cut -c1-120
(python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/torchao-*.whl && PYTHONPATH=/tmp/site timeout 100 $P --networks 4096-4096:4096 --precisions fp8 --variants graph,compiled --json $OUT/torch_fp8.json) 2>&1 | grep -E "pytorch |rror" | cut -c1-120
for net in seed mid big; do for act in relu gelu; do
  echo "== $net $act a72cb34"; timeout 40 pack/base/mnist_bench --network $net --precision fp8 --activation $act --no-layers --repeats 5 2>&1 | grep -E "^784"
  echo "== $net $act HEAD"; timeout 40 build/mnist_bench --network $net --precision fp8 --activation $act --no-layers --repeats 5 2>&1 | grep -E "^784"
done; done > $OUT/fp8_rows.txt 2>&1
cut -c1-80 $OUT/fp8_rows.txt | grep -E "==|auto|fused " | head -40
cd $OUT && tar -czf logsG.tgz ab ctest.txt torch_*.json && rm -rf ab ctest.txt torch_*.json
