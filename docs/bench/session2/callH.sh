#!/bin/bash
# Session 2, device call H (HEAD 6ca480b, the build that ships): every GPU suite (README's block from call G checked by
# test_readme_run), README's run again, the fp8 rows against a72cb34's, ours against torchao compiled, in one call.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
B=build/mnist_train
$B --epochs 5 > $OUT/readme_run.txt 2>&1; tail -1 $OUT/readme_run.txt
(cd build && timeout 150 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > $OUT/ctest.txt 2>&1
(cd build && timeout 60 ctest -R "test_step_tune" --output-on-failure) >> $OUT/ctest.txt 2>&1
grep -E "tests passed|\*\*\*|Assert|fingerprint|behind" $OUT/ctest.txt | cut -c1-200 | tail -8
$B --epochs 5 --precision fp8 2>&1 | grep -E "^done" | tee $OUT/fp8_default.txt | cut -c1-110
export MNIST_TUNE_CACHE_DIR=/tmp/tcb
for net in seed mid big; do for act in relu gelu; do
  echo "== $net $act a72cb34"; timeout 40 pack/base/mnist_bench --network $net --precision fp8 --activation $act --no-layers --repeats 5 2>&1 | grep -E "^784"
  echo "== $net $act HEAD"; timeout 40 build/mnist_bench --network $net --precision fp8 --activation $act --no-layers --repeats 5 2>&1 | grep -E "^784"
done; done > $OUT/fp8_rows.txt 2>&1
cut -c1-72 $OUT/fp8_rows.txt
(python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/torchao-*.whl && PYTHONPATH=/tmp/site timeout 100 python3 scripts/bench_pytorch.py --activations relu --repeats 3 --networks 4096-4096:4096 --precisions fp8 --variants compiled --json $OUT/torch_fp8.json) 2>&1 | grep -E "pytorch |rror" | cut -c1-120
timeout 40 build/mnist_bench --network big --precision fp8 --activation relu --no-layers --repeats 5 2>&1 | grep -E "^784" | tee $OUT/ours_fp8_after.txt | cut -c1-80
