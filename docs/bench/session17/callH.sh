#!/bin/bash
# Session 17, device call H (b714961, the build that ships; the tuner is session 16's): issue 27's default-run
# targets, scripts/ab_tune.sh --rounds 5 on 784-1024-1024-10 FP32, every mode's first run (a tuning cache of its
# own, --tune-cache off) against --autotune off with the context cycle (the fair pair since session 14).
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p /tmp/h
B=build/mnist_train
timeout 200 scripts/ab_tune.sh --rounds 5 --log /tmp/h/ab -- off="$B --autotune off --context-cycle" first="$B --tune-cache off" \
  off-u="$B --mode unfused --autotune off --context-cycle" first-u="$B --mode unfused --tune-cache off" \
  off-a="$B --mode auto --autotune off" first-a="$B --mode auto --tune-cache off --show-plans" > /tmp/h/ab.txt 2>&1
echo "ab rc $?"; tail -8 /tmp/h/ab.txt
grep -h "chosen in" /tmp/h/ab/first-a.*.txt | cut -c1-160
tar -czf $OUT/H-logs.tgz -C /tmp h
