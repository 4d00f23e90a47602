#!/bin/bash
# Session 22, device call E, never run (two refused starts; the device time left fell short): 3f191f2 (the bench
# in every creation order, and the way search
# from both tuned steps after a near tie): README's run as the call's first process and test_readme_run; the GPU
# suite and test_step_tune; README's table: scripts/bench_compare.sh --no-layers --show-plans once (ReLU rows for
# PyTorch; torchao for fp8). Saved every 20 s: the session's device time left (565 s) barely covers the call.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p /tmp/e
save() { tar -czf $OUT/E-logs.tgz -C /tmp e; }
gpu() { nvidia-smi --query-gpu=temperature.gpu,clocks.sm,clocks.mem,power.draw --format=csv,noheader; }
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) at start: $(gpu)"
( while sleep 20; do save; done ) > /dev/null 2>&1 &
SAVER=$!
build/mnist_train --epochs 5 > /tmp/e/readme_run.txt 2>&1; tail -1 /tmp/e/readme_run.txt
(cd build && timeout 60 ctest -R "test_readme_run" --output-on-failure) > /tmp/e/readme_test.txt 2>&1; grep -E "tests passed" /tmp/e/readme_test.txt
(cd build && timeout 200 ctest -R test_step_tune -V > /tmp/e/step_tune.txt 2>&1; echo "step_tune rc $? at $SECONDS s"; grep -E "tests passed|held|Checks|searched from" /tmp/e/step_tune.txt | cut -c1-170 | head -12)
(cd build && timeout 200 ctest -L gpu -E "test_step_tune|test_readme_run" -j4 --output-on-failure > /tmp/e/ctest.txt 2>&1; echo "suite rc $? at $SECONDS s"; grep -E "tests passed|Failed|\*\*\*" /tmp/e/ctest.txt | head)
save
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/torchao-*.whl && export PYTHONPATH=/tmp/site
export TORCHINDUCTOR_CACHE_DIR=/tmp/tcache
R=/tmp/e/r1; mkdir -p $R; S=$SECONDS
BENCH_JSON_DIR=$R TORCH_BENCH_FLAGS="--activations relu" MNIST_TUNE_CACHE_DIR=/tmp/tune-r1 timeout $((460 - SECONDS)) scripts/bench_compare.sh build --no-layers --show-plans > $R/compare.log 2>&1
echo "bench_compare: rc $? after $((SECONDS - S)) s $(gpu)"
grep -E "^784" $R/compare.log | head -15 | cut -c1-150
grep -E "^784-1024-1024-10 .*(tf32|fp8) " $R/compare.log | head -6 | cut -c1-110
grep -E "^creation orders" $R/compare.log | sed -E 's/fingerprints.*: /: /' | sort | uniq -c
grep -cE "searched from (un)?fused -> searched from" $R/compare.log
kill $SAVER; wait $SAVER 2>/dev/null; save
