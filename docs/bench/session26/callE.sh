#!/bin/bash
# Session 26, device call E (23e4894's build, the tree that lands): the GPU suite, the default training run,
# the fp8 training run, and mnist_bench --network seed --no-layers --against-off (the refactored rounds).
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p /tmp/e
save() { tar -czf $OUT/E-logs.tgz -C /tmp e; }
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
S=$SECONDS
(cd build && timeout 200 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > /tmp/e/suite.txt 2>&1
(cd build && timeout 90 ctest -R "test_step_tune" --output-on-failure) >> /tmp/e/suite.txt 2>&1
echo "suite in $((SECONDS - S)) s:"
grep -E "tests passed|\*\*\*|Assert|\.c:[0-9]+:|Failed" /tmp/e/suite.txt | cut -c1-180 | tail -8
save
MNIST_TUNE_CACHE_DIR=/tmp/tc-e timeout 60 build/mnist_train --data-dir data/mnist --epochs 5 > /tmp/e/train.txt 2>&1
echo "mnist_train --epochs 5: rc $?"; tail -8 /tmp/e/train.txt
MNIST_TUNE_CACHE_DIR=/tmp/tc-e timeout 60 build/mnist_train --data-dir data/mnist --epochs 5 --precision fp8 > /tmp/e/train-fp8.txt 2>&1
echo "mnist_train --epochs 5 --precision fp8: rc $?"; tail -3 /tmp/e/train-fp8.txt
save
S=$SECONDS
MNIST_TUNE_CACHE_DIR=/tmp/tc-e2 timeout 200 build/mnist_bench --data-dir data/mnist --no-layers --against-off \
  --network seed --json /tmp/e/seed.json > /tmp/e/seed.txt 2>&1
echo "bench seed: rc $? in $((SECONDS - S)) s"
grep -E "^784-[0-9-]+ +[0-9]+ " /tmp/e/seed.txt | sed -E 's/ +/ /g' | awk '{print $3, $4, $5, $6}' > /tmp/e/h
grep -E "^784-[0-9-]+ +[0-9]+ " /tmp/e/seed.txt | grep -oE "[0-9.]+x off's time.*" | paste -d' ' /tmp/e/h - | head -40
save
echo "end at $SECONDS s"
