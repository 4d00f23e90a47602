#!/bin/bash
# Session 22, device call A (the bench made in every creation order, later orders with the first's choices):
# README's run as the call's first process and test_readme_run; the GPU suite and test_step_tune (its bench case
# now asserts one set per row in every order); mnist_bench's rows that were over 1.01x in session 21's call D
# (784-100-10 fp8, 784-1024-1024-10 fp8, 784-4096-4096-10 tf32), with the time each took.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p /tmp/a
save() { tar -czf $OUT/A-logs.tgz -C /tmp a; }
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
build/mnist_train --epochs 5 > /tmp/a/readme_run.txt 2>&1; tail -1 /tmp/a/readme_run.txt
(cd build && timeout 60 ctest -R "test_readme_run" --output-on-failure) > /tmp/a/readme_test.txt 2>&1; grep -E "tests passed" /tmp/a/readme_test.txt
(cd build && timeout 200 ctest -L gpu -E "test_step_tune|test_readme_run" -j4 --output-on-failure > /tmp/a/ctest.txt 2>&1; echo "suite rc $? at $SECONDS s"; grep -E "tests passed|Failed|\*\*\*" /tmp/a/ctest.txt | head)
(cd build && timeout 200 ctest -R test_step_tune -V > /tmp/a/step_tune.txt 2>&1; echo "step_tune rc $? at $SECONDS s"; grep -E "tests passed|held|Checks|creation orders" /tmp/a/step_tune.txt | cut -c1-170 | head -20)
save
D=data/mnist
for sel in "seed fp8" "mid fp8" "big tf32"; do
  set -- $sel; S=$SECONDS
  MNIST_TUNE_CACHE_DIR=/tmp/tc-a timeout 200 build/mnist_bench --data-dir $D --network $1 --precision $2 --no-layers --show-plans > /tmp/a/bench-$1-$2.txt 2>&1
  echo "bench $1 $2: rc $? in $((SECONDS - S)) s"
  grep -E "^784" /tmp/a/bench-$1-$2.txt | cut -c1-150
  grep -E "^creation orders" /tmp/a/bench-$1-$2.txt | sort | uniq -c | sed -E 's/fingerprints.*: /: /' | head -3
  save
done
