#!/bin/bash
# Session 22, device call D (e0f1c12): why call C's 784-1024-1024-10 TF32 ReLU auto row ran 20.16 ms tuned against
# 18.84 with --autotune off (call B's tuned process: 18.99): mnist_bench at that group alone, four processes
# tuning afresh (--tune-cache off --show-plans), exact then off, alternated; the chosen sets and their evidence.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p /tmp/d
save() { tar -czf $OUT/D-logs.tgz -C /tmp d; }
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
for r in 1 2 3 4; do
  for tune in exact off; do
    timeout 60 build/mnist_bench --data-dir data/mnist --network mid --precision tf32 --activation relu --autotune $tune \
      --no-layers --tune-cache off --show-plans > /tmp/d/$tune-$r.txt 2>&1
    echo "$tune $r: rc $? | $(grep -E '^784' /tmp/d/$tune-$r.txt | awk '{printf "%s %s %s | ", $3, $6, $9}') $(grep -A2 'auto tf32:' /tmp/d/$tune-$r.txt | grep -oE 'fingerprint [0-9a-f]+')"
    grep -E "a fresh context|unfused won by|whole step" /tmp/d/$tune-$r.txt | tail -4 | cut -c1-160
  done
  save
done
