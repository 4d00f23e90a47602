#!/bin/bash
# Session 25, device call D: is the TF32 spread of two trainers with the same launches (calls A-C) the context's or
# the trainer's? mnist_bench built with control.patch (pack/mnist_bench_probe): under MNIST_PROBE_CONTROL the "off"
# side of each pair is the row itself again, in the row's own context with its own choices. 784-1024-1024-10 TF32
# ReLU alone twice with the control, once without (HEAD's build), then every 784-1024-1024-10 row with the control.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p /tmp/d
save() { tar -czf $OUT/D-logs.tgz -C /tmp d; }
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
bench() { # bench NAME BINARY TIMEOUT ARGS...
  local name=$1 bin=$2 limit=$3 S=$SECONDS
  shift 3
  MNIST_TUNE_CACHE_DIR=/tmp/tc-d-$name timeout $limit $bin --data-dir data/mnist --no-layers \
    --show-plans --against-off --json /tmp/d/$name.json "$@" > /tmp/d/$name.txt 2>&1
  echo "bench $name ($*): rc $? in $((SECONDS - S)) s"
  grep -E "^784-[0-9-]+ +[0-9]+ " /tmp/d/$name.txt | sed -E 's/ +/ /g' | awk '{print $3, $4, $5, $6}' > /tmp/d/h
  grep -E "^784-[0-9-]+ +[0-9]+ " /tmp/d/$name.txt | grep -oE "[0-9.]+x off's time.*" | paste -d' ' /tmp/d/h -
  save
}
MNIST_PROBE_CONTROL=1 bench control-1 pack/mnist_bench_probe 60 --network mid --precision tf32 --activation relu
MNIST_PROBE_CONTROL=1 bench control-2 pack/mnist_bench_probe 60 --network mid --precision tf32 --activation relu
bench plain-1 build/mnist_bench 60 --network mid --precision tf32 --activation relu
MNIST_PROBE_CONTROL=1 bench control-mid pack/mnist_bench_probe 200 --network mid
echo "end at $SECONDS s"
