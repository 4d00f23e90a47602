#!/bin/bash
# Session 25, device call C: 784-4096-4096-10 and 784-100-10 under mnist_bench --against-off (whether the pair's steps launch
# the same kernels the same way is on each line).
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p /tmp/c
save() { tar -czf $OUT/C-logs.tgz -C /tmp c; }
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
bench() { # bench NAME TIMEOUT ARGS...
  local name=$1 limit=$2 S=$SECONDS
  shift 2
  MNIST_TUNE_CACHE_DIR=/tmp/tc-c-$name timeout $limit build/mnist_bench --data-dir data/mnist --no-layers \
    --show-plans --against-off --json /tmp/c/$name.json "$@" > /tmp/c/$name.txt 2>&1
  echo "bench $name ($*): rc $? in $((SECONDS - S)) s"
  grep -E "^784-[0-9-]+ +[0-9]+ " /tmp/c/$name.txt | sed -E 's/ +/ /g' | awk '{print $3, $4, $5, $6}' > /tmp/c/h
  grep -E "^784-[0-9-]+ +[0-9]+ " /tmp/c/$name.txt | grep -oE "[0-9.]+x off's time.*" | paste -d' ' /tmp/c/h -
  save
}
bench big 330 --network big
bench seed 150 --network seed
echo "end at $SECONDS s"
