#!/bin/bash
# Session 24, device call B (HEAD 3e191e3, binaries identical to 6482a1e's): where does a row that runs cuBLASLt's
# first candidates under --autotune exact (the same kernels as off) lose 1.2 % to off? Session 23's rows: 784-1024-
# 1024-10 tf32 ReLU fused 1.012 (1.010-1.013, three rounds), 784-4096-4096-10 bf16 unfused+pad 1.012 (1.011-1.013,
# two). (1) the same rows as whole mnist_train runs, scripts/ab_tune.sh 5 rounds: exact tuning afresh (tune cache
# off), off, exact reading a tuning cache; (2) mnist_bench limited to the rows' precision and activation, exact and
# off alternated, a process each.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p /tmp/b
save() { tar -czf $OUT/B-logs.tgz -C /tmp b; }
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
T="build/mnist_train --data-dir data/mnist --quiet"
MID="--hidden 1024,1024 --batch 256 --precision tf32 --mode fused"
BIG="--hidden 4096,4096 --batch 4096 --precision bf16 --mode unfused --pad-units"
for net in MID BIG; do
  F=${!net}
  scripts/ab_tune.sh --rounds 5 --log /tmp/b/ab-$net -- "exact=$T $F --tune-cache off" "off=$T $F --autotune off" \
    "cached=$T $F --tune-cache-dir /tmp/tcB-$net" > /tmp/b/ab-$net.txt 2>&1
  echo "ab $net rc $? at $SECONDS s"; cat /tmp/b/ab-$net.txt | tail -6
  save
done
for r in 1 2 3; do
  for tune in exact off; do
    MNIST_TUNE_CACHE_DIR=/tmp/tcb-r$r timeout 100 build/mnist_bench --data-dir data/mnist --network mid --precision tf32 \
      --activation relu --autotune $tune --no-layers --show-plans --json /tmp/b/mid-$tune-r$r.json > /tmp/b/mid-$tune-r$r.txt 2>&1
    echo "mid tf32 relu $tune r$r rc $? at $SECONDS s: $(grep -E '^784-1024-1024-10 ' /tmp/b/mid-$tune-r$r.txt | awk '{printf "%s %s | ", $3, $6}')"
  done
  save
done
for r in 1 2; do
  for tune in exact off; do
    MNIST_TUNE_CACHE_DIR=/tmp/tcb-r$r timeout 150 build/mnist_bench --data-dir data/mnist --network big --precision bf16 \
      --activation relu --autotune $tune --no-layers --show-plans --json /tmp/b/big-$tune-r$r.json > /tmp/b/big-$tune-r$r.txt 2>&1
    echo "big bf16 relu $tune r$r rc $? at $SECONDS s: $(grep -E '^784-4096-4096-10 ' /tmp/b/big-$tune-r$r.txt | awk '{printf "%s %s | ", $3, $6}')"
  done
  save
done
echo "end at $SECONDS s"
