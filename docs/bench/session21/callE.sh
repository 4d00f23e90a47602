#!/bin/bash
# Session 21, device call E (73a8981, the build that ships): why an fp8 auto row that makes fused's step runs
# 1-2 % behind fused (call D: 784-1024-1024-10 FP8 ReLU 14.33 against 14.02). mnist_train at that row's shape
# (--hidden 1024,1024 --batch 256 --precision fp8), fused and auto, three rounds, each process tuning afresh
# (--tune-cache off --show-plans); then, with a cache each mode filled first, ncu's list of every kernel (name,
# duration) of a cached run launched from the host (--no-graphs --steps 3), fused and auto, to compare them.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p /tmp/e
save() { tar -czf $OUT/E-logs.tgz -C /tmp e; }
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
F="--hidden 1024,1024 --batch 256 --precision fp8 --epochs 5"
for r in 1 2 3; do
  for m in fused auto; do
    timeout 60 build/mnist_train $F --mode $m --tune-cache off --show-plans > /tmp/e/$m-$r.txt 2>&1
    echo "$m $r: $(grep '^done' /tmp/e/$m-$r.txt | sed -E 's/.*accuracy ([0-9.]+%).*, ([0-9.]+ ms) per epoch.*/\1 \2/') | $(grep -oE 'fingerprint [0-9a-f]+' /tmp/e/$m-$r.txt | head -1) | $(grep -cE '^  [a-z].*(algo|twin|way) ' /tmp/e/$m-$r.txt) slots"
  done
done
save
for m in fused auto; do
  MNIST_TUNE_CACHE_DIR=/tmp/tc-e-$m timeout 60 build/mnist_train $F --mode $m > /tmp/e/fill-$m.txt 2>&1
  MNIST_TUNE_CACHE_DIR=/tmp/tc-e-$m timeout 120 ncu --csv --page raw --print-units base --metrics gpu__time_duration.sum \
    build/mnist_train $F --mode $m --no-graphs --steps 3 > /tmp/e/ncu-$m.csv 2> /tmp/e/ncu-$m.err
  echo "ncu $m rc $? at $SECONDS s: $(grep -c '^"[0-9]' /tmp/e/ncu-$m.csv) kernels"
done
save
