#!/bin/bash
# Session 24, device call D (HEAD 3e191e3, the source of 6482a1e's binaries): more rounds of session 23's rows
# (docs/bench/session23/rows_lib.sh: every mnist_bench row under --autotune exact then off, a process each, tuning
# afresh each round): 784-100-10's round 5, 784-1024-1024-10's round 6.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
CALL=d
mkdir -p /tmp/d
save() { tar -czf $OUT/D-logs.tgz -C /tmp d; }
. docs/bench/session23/rows_lib.sh
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
rows 5 seed
rows 6 mid
echo "end at $SECONDS s"
