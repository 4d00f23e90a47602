#!/bin/bash
# Session 23, device call C (the build of calls A and B): every mnist_bench row under --autotune exact and off,
# 784-4096-4096-10's round 2, then 784-1024-1024-10's and 784-100-10's round 3 (rows_lib.sh).
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
CALL=c
mkdir -p /tmp/c
save() { tar -czf $OUT/C-logs.tgz -C /tmp c; }
. docs/bench/session23/rows_lib.sh
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
rows 2 big
rows 3 mid seed
