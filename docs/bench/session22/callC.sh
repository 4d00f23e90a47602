#!/bin/bash
# Session 22, device call C (e0f1c12, the build of calls A and B): every mnist_bench row (--no-layers) tuned as
# shipped (--autotune exact) against --autotune off in the same call, a network at a time, exact then off, each
# group made in every creation order; issue 27's "no row slower than off by more than 1 %".
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p /tmp/c
save() { tar -czf $OUT/C-logs.tgz -C /tmp c; }
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
for net in seed mid big; do
  for tune in exact off; do
    S=$SECONDS
    MNIST_TUNE_CACHE_DIR=/tmp/tc-c timeout 280 build/mnist_bench --data-dir data/mnist --network $net --autotune $tune --no-layers \
      --json /tmp/c/$net-$tune.json > /tmp/c/$net-$tune.txt 2>&1
    echo "$net $tune: rc $? in $((SECONDS - S)) s"
    save
  done
done
