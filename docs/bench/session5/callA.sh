#!/bin/bash
# Session 5, device call A (d46e4eb: session 4's reread, host code never run on a GPU): the GPU suite and
# test_step_tune; README's run; the default run off / first / cached per mode (3 rounds); the FP8 baseline for
# issue 28: the big network's FP8 step under ncu (kernel times and bytes), its bench row and torchao's in one call.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
B=build/mnist_train
$B --epochs 5 > $OUT/readme_run.txt 2>&1; tail -1 $OUT/readme_run.txt
(cd build && timeout 170 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > $OUT/ctest.txt 2>&1
(cd build && timeout 90 ctest -R "test_step_tune" --output-on-failure) >> $OUT/ctest.txt 2>&1
grep -E "tests passed|\*\*\*|Assert|\.c:[0-9]+:|Failed" $OUT/ctest.txt | cut -c1-180 | tail -10
for m in fused unfused auto; do timeout 20 $B --mode $m --epochs 1 --tune-cache-dir /tmp/tc-$m > /dev/null 2>&1; done
timeout 100 scripts/ab_tune.sh --rounds 3 --log $OUT/ab -- off="$B --autotune off" first="$B --tune-cache off" cached="$B --tune-cache-dir /tmp/tc-fused" \
  off-u="$B --mode unfused --autotune off" first-u="$B --mode unfused --tune-cache off" cached-u="$B --mode unfused --tune-cache-dir /tmp/tc-unfused" \
  off-a="$B --mode auto --autotune off" first-a="$B --mode auto --tune-cache off" cached-a="$B --mode auto --tune-cache-dir /tmp/tc-auto" > $OUT/ab.txt 2>&1
cat $OUT/ab.txt
$B --epochs 5 --precision fp8 2>&1 | grep -E "^done" | cut -c1-120
timeout 100 ncu --profile-from-start off --clock-control none --csv --page raw --print-units base --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
  build/mnist_bench --profile-step --precision fp8 --network big > $OUT/ncu_fp8.csv 2> $OUT/ncu_fp8.err; echo "ncu rc=$?"
export MNIST_TUNE_CACHE_DIR=/tmp/tcb
timeout 60 build/mnist_bench --network big --precision fp8 --activation relu --no-layers --repeats 5 2>&1 | grep -E "^784" | tee $OUT/ours_fp8.txt | cut -c1-100
(python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/torchao-*.whl && PYTHONPATH=/tmp/site timeout 90 python3 scripts/bench_pytorch.py --activations relu --repeats 3 --networks 4096-4096:4096 --precisions fp8 --variants compiled --json $OUT/torch_fp8.json) 2>&1 | grep -E "pytorch|rror" | cut -c1-150
cd $OUT && xz -9 ncu_fp8.csv && tar -czf logsA.tgz ab ctest.txt ncu_fp8.csv.xz ncu_fp8.err && rm -rf ab ctest.txt ncu_fp8.csv.xz ncu_fp8.err
