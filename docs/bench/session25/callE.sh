#!/bin/bash
# Session 25, device call E (HEAD after the review: bench_graph_launches hashes every node, memsets and dependencies;
# each side of a pair takes its first making's set in the second): the GPU suite (test_bench_launches and
# test_bench_against_off verbose), then every 784-1024-1024-10 row under --against-off once more.
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
(cd build && timeout 90 ctest -R "test_bench_launches|test_bench_against_off" -V) > /tmp/e/tests-v.txt 2>&1
grep -E "passed, .* failed|Checks|100%|FAIL|SKIP" /tmp/e/tests-v.txt | cut -c1-160
save
S=$SECONDS
MNIST_TUNE_CACHE_DIR=/tmp/tc-e timeout 200 build/mnist_bench --data-dir data/mnist --no-layers --show-plans \
  --against-off --network mid --json /tmp/e/mid.json > /tmp/e/mid.txt 2>&1
echo "bench mid: rc $? in $((SECONDS - S)) s"
grep -E "^784-[0-9-]+ +[0-9]+ " /tmp/e/mid.txt | sed -E 's/ +/ /g' | awk '{print $3, $4, $5, $6}' > /tmp/e/h
grep -E "^784-[0-9-]+ +[0-9]+ " /tmp/e/mid.txt | grep -oE "[0-9.]+x off's time.*" | paste -d' ' /tmp/e/h -
grep "^against off: its" /tmp/e/mid.txt | sort | uniq -c | sort -rn | head -3
save
echo "end at $SECONDS s"
