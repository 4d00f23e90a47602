#!/bin/bash
# Session 2, device call F: the FP8 cast in 32-row tiles and the loss kernel's partials per 16 rows: every GPU suite,
# FP8 accuracy, ncu of one FP8 step, ours against torchao compiled, every fp8 row against a72cb34's in one call.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
B=build/mnist_train
(cd build && timeout 200 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > $OUT/ctestF.txt 2>&1
grep -E "tests passed|\*\*\*|Assert|Failure" $OUT/ctestF.txt | cut -c1-220 | tail -8
$B --epochs 5 --precision fp8 2>&1 | grep -E "^done|^fp8" | tee $OUT/fp8_default.txt | cut -c1-150
for p in fp8 bf16; do $B --hidden 4096,4096 --batch 4096 --epochs 5 --precision $p 2>&1 | grep -E "^done" | sed "s/^/$p: /"; done | tee $OUT/big_accuracy.txt | cut -c1-120
timeout 100 ncu --profile-from-start off --clock-control none --csv --page raw --print-units base --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
  build/mnist_bench --profile-step --precision fp8 --network big > $OUT/ncu_fp8.csv 2> $OUT/ncu_fp8.err
export MNIST_TUNE_CACHE_DIR=/tmp/tcb
timeout 40 build/mnist_bench --network big --precision fp8 --activation relu --no-layers --repeats 5 2>&1 | grep -E "^784" | tee $OUT/ours_fp8.txt | cut -c1-100
(python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/torchao-*.whl && PYTHONPATH=/tmp/site timeout 150 python3 scripts/bench_pytorch.py --activations relu --repeats 3 --networks 4096-4096:4096 --precisions fp8 --variants compiled --json $OUT/torch_fp8.json) 2>&1 | grep -E "pytorch|rror" | cut -c1-150
timeout 40 build/mnist_bench --network big --precision fp8 --activation relu --no-layers --repeats 5 2>&1 | grep -E "^784" | tee -a $OUT/ours_fp8.txt | cut -c1-100
for net in seed mid big; do for act in relu gelu; do
  echo "== $net $act a72cb34"; timeout 60 pack/base/mnist_bench --network $net --precision fp8 --activation $act --no-layers --repeats 5 2>&1 | grep -E "^784"
  echo "== $net $act HEAD"; timeout 60 build/mnist_bench --network $net --precision fp8 --activation $act --no-layers --repeats 5 2>&1 | grep -E "^784"
done; done > $OUT/fp8_rows.txt 2>&1
cut -c1-100 $OUT/fp8_rows.txt
cd $OUT && xz -9 ncu_fp8.csv && tar -cf logsF.tar ctestF.txt ncu_fp8.csv.xz ncu_fp8.err && rm -f ctestF.txt ncu_fp8.csv.xz ncu_fp8.err
