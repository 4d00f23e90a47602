#!/bin/bash
# Session 21, device call C (410c011's build in pack/build.tar.xz, the build that ships): a run that reads its
# choices from the tuning cache against the first run that wrote them, at the default network in fp8 (ReLU, GELU)
# and fp32: in call A and B a probe binary reading the first run's cache trained the fp8 default network 7 % slower
# per epoch (27.4-28.0 ms against 25.6). Per round: the first run (a fresh cache), the cached run, the cached run
# with --context-cycle, --tune-cache off, --autotune off, --autotune off --context-cycle; --show-plans on each.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p /tmp/c
save() { tar -czf $OUT/C-logs.tgz -C /tmp c; }
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
run() { # name, flags...
  local n=$1; shift
  MNIST_TUNE_CACHE_DIR=/tmp/tc-$cfg timeout 60 build/mnist_train --epochs 5 --show-plans "$@" > /tmp/c/$cfg-$r-$n.txt 2>&1
  printf "%-6s %s %-10s %s | %s\n" $cfg $r $n "$(grep '^done' /tmp/c/$cfg-$r-$n.txt | sed -E 's/.*accuracy ([0-9.]+%).*, ([0-9.]+ ms) per epoch.*; ([0-9.]+ s) wall.*/\1 \2 \3/')" "$(grep -oE 'fingerprint [0-9a-f]+' /tmp/c/$cfg-$r-$n.txt | head -1)"
}
for r in 1 2 3; do
  for cfg in fp8relu fp8gelu fp32; do
    case $cfg in fp8relu) F="--precision fp8";; fp8gelu) F="--precision fp8 --activation gelu";; fp32) F="";; esac
    rm -rf /tmp/tc-$cfg
    run first $F
    run cached $F
    run cycled $F --context-cycle
    run nocache $F --tune-cache off
    run off $F --autotune off
    run offcycle $F --autotune off --context-cycle
  done
  save
done
echo "end at $SECONDS s"
