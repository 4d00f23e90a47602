#!/bin/bash
# Session 16, device call E (the build that ships: call D's cast): README's run on the freshly started machine (its
# tuning cache empty) and test_readme_run; the GPU suite and test_step_tune; the README table's regeneration, one
# run of scripts/bench_compare.sh --no-layers (every mnist_bench row, a fresh tuning cache; PyTorch eager, graphed
# and compiled+graphed for the ReLU rows, torchao for fp8); then every fp8 row of a72cb34 (pack/old) and of this
# build, a process per network, alternated (issue 28: each <= 1.01x its a72cb34 median).
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p $OUT/e
save() { tar -czf $OUT/E-logs.tgz -C $OUT e; }
build/mnist_train --epochs 5 > $OUT/e/readme_run.txt 2>&1; tail -1 $OUT/e/readme_run.txt
(cd build && timeout 60 ctest -R "test_readme_run" --output-on-failure) > $OUT/e/readme_test.txt 2>&1; grep -E "tests passed" $OUT/e/readme_test.txt
(cd build && timeout 150 ctest -L gpu -E "test_step_tune|test_readme_run" -j4 --output-on-failure > $OUT/e/ctest.txt 2>&1; echo "suite rc $?"; grep -E "tests passed|Failed|\*\*\*" $OUT/e/ctest.txt | head)
(cd build && timeout 120 ctest -R test_step_tune -V > $OUT/e/step_tune.txt 2>&1; echo "step_tune rc $?"; grep -E "tests passed|Checks" $OUT/e/step_tune.txt | tail -2)
save
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/torchao-*.whl && export PYTHONPATH=/tmp/site
export TORCHINDUCTOR_CACHE_DIR=/tmp/tcache
R=$OUT/e/r1; mkdir -p $R; S=$SECONDS
BENCH_JSON_DIR=$R TORCH_BENCH_FLAGS="--activations relu" MNIST_TUNE_CACHE_DIR=/tmp/tune-r1 timeout 380 scripts/bench_compare.sh build --no-layers > $R/compare.log 2>&1
echo "bench_compare: rc $? after $((SECONDS - S)) s"
grep -E "^\| 784|^784" $R/compare.log | head -14 | cut -c1-170
save
for net in seed mid big; do
  for b in old new; do
    [ $SECONDS -gt 540 ] && { echo "skipped $b $net: $SECONDS s"; continue; }
    bin=build/mnist_bench; [ $b = old ] && bin=pack/old/mnist_bench
    MNIST_TUNE_CACHE_DIR=/tmp/tcE-$b timeout 60 $bin --network $net --precision fp8 --no-layers --json $OUT/e/fp8-$b-$net.json > $OUT/e/fp8-$b-$net.txt 2>&1; echo "$b $net rc $? at $SECONDS s"
  done
done
save
