#!/bin/bash
# Session 24, device call C (HEAD 3e191e3, the source of 6482a1e's binaries): more rounds of session 23's rows
# (docs/bench/session23/rows_lib.sh: every mnist_bench row under --autotune exact then off, a process each, tuning
# afresh each round): 784-4096-4096-10's round 3, 784-1024-1024-10's rounds 4 and 5, 784-100-10's round 4.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
CALL=c
mkdir -p /tmp/c
save() { tar -czf $OUT/C-logs.tgz -C /tmp c; }
. docs/bench/session23/rows_lib.sh
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
rows 4 mid
rows 3 big
rows 4 seed
rows 5 mid
echo "end at $SECONDS s"
