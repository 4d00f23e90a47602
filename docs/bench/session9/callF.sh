#!/bin/bash
# Session 9, device call F (ca38dae, the build that ships): README's run first, on the freshly started machine (its
# tuning cache empty); the whole GPU suite and test_step_tune; docs/logs (the BF16 default run per mode with --log);
# the default fp8 run; the README table's regeneration, run 1 of 3: scripts/bench_compare.sh --no-layers (every
# mnist_bench row, a fresh tuning cache; PyTorch eager, graphed and compiled+graphed for the ReLU rows, torchao for
# fp8), then the GELU rows' PyTorch eager and graphed (bench_pytorch.py), as session 8's call C.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
build/mnist_train --epochs 5 > $OUT/F-readme_run.txt 2>&1; tail -1 $OUT/F-readme_run.txt
mkdir -p $OUT/f/logs
(cd build && timeout 200 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > $OUT/f/ctest.txt 2>&1
(cd build && timeout 90 ctest -R "test_step_tune" --output-on-failure) >> $OUT/f/ctest.txt 2>&1
grep -E "tests passed|\*\*\*|Assert|\.c:[0-9]+:|Failed" $OUT/f/ctest.txt | cut -c1-180 | tail -8
for m in fused unfused auto; do
  build/mnist_train --epochs 5 --precision bf16 --mode $m --log $OUT/f/logs/bf16-$m.csv > $OUT/f/logs/bf16-$m.txt 2>&1
  grep "^done" $OUT/f/logs/bf16-$m.txt | cut -c1-100
done
build/mnist_train --epochs 5 --precision fp8 > $OUT/f/fp8_default.txt 2>&1; grep "^done" $OUT/f/fp8_default.txt | cut -c1-100
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/torchao-*.whl && export PYTHONPATH=/tmp/site
export TORCHINDUCTOR_CACHE_DIR=$PWD/tcache
R=$OUT/f/r1; mkdir -p $R; S=$SECONDS
BENCH_JSON_DIR=$R TORCH_BENCH_FLAGS="--activations relu" MNIST_TUNE_CACHE_DIR=/tmp/tune-r1 timeout 330 scripts/bench_compare.sh build --no-layers > $R/compare.log 2>&1
echo "run 1 bench_compare: rc $? after $((SECONDS - S)) s"; S=$SECONDS
timeout 90 python3 scripts/bench_pytorch.py --activations gelu --variants eager,graph --json $R/torch_gelu.json > $R/torch_gelu.log 2>&1
echo "run 1 gelu eager/graph: rc $? after $((SECONDS - S)) s"
grep -E "^\| 784" $R/compare.log | head -12 | cut -c1-150
cd $OUT && tar -czf F-logs.tgz f && rm -rf f
