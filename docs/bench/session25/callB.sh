#!/bin/bash
# Session 25, device call B (mnist_bench --against-off now also says whether the pair's steps launch the same kernels
# the same way): test_bench_against_off (its row count fixed, tf32 rows), then why call A's 784-1024-1024-10 TF32 rows
# ran 1.01-1.04x their --autotune off twins with the same kernels: the TF32 ReLU rows alone (twice: does it need the
# rows before them?), the same without the context cycle; then every 784-1024-1024-10 row again.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p /tmp/b
save() { tar -czf $OUT/B-logs.tgz -C /tmp b; }
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
(cd build && timeout 90 ctest -R "test_bench_against_off" --output-on-failure) > /tmp/b/test.txt 2>&1
grep -E "tests passed|FAIL|passed," /tmp/b/test.txt
bench() { # bench NAME TIMEOUT ARGS...
  local name=$1 limit=$2 S=$SECONDS
  shift 2
  MNIST_TUNE_CACHE_DIR=/tmp/tc-b-$name timeout $limit build/mnist_bench --data-dir data/mnist --no-layers \
    --show-plans --against-off --json /tmp/b/$name.json "$@" > /tmp/b/$name.txt 2>&1
  echo "bench $name ($*): rc $? in $((SECONDS - S)) s"
  grep -E "^784-[0-9-]+ +[0-9]+ " /tmp/b/$name.txt | sed -E 's/ +/ /g' | awk '{print $3, $4, $5, $6}' > /tmp/b/h
  grep -E "^784-[0-9-]+ +[0-9]+ " /tmp/b/$name.txt | grep -oE "[0-9.]+x off's time.*" | paste -d' ' /tmp/b/h -
  save
}
bench tf32-1 60 --network mid --precision tf32 --activation relu
bench tf32-2 60 --network mid --precision tf32 --activation relu
bench tf32-nocycle 60 --network mid --precision tf32 --activation relu --no-context-cycle
bench mid 200 --network mid
echo "end at $SECONDS s"
