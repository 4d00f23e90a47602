#!/bin/bash
# Session 14, device call A: what makes a process that tuned train the same set 0.6-1.4 % faster than one that read
# it from the cache (session 13, call E)? An experimental build (pack/exp_mnist_train: 3da4e15 plus
# exp_spin.patch, never committed) adds three knobs, each read only by that binary:
#   EXP_APART_MS  after the tuner: a CUDA context apart, 1 GiB allocated in it, busy kernels for that long, then
#                 retired beside the graph capture (what the tuner's context apart does, without the tuning)
#   EXP_SPIN_MS   after the tuner, before the capture: busy kernels for that long in the run's own context
#   EXP_LATE_MS   after the capture, just before epoch 1: the same
# Processes, three rounds: tune (fresh cache) / read / read+apart / read+spin / read+late / read.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
mkdir -p $OUT/a
nvidia-smi --query-gpu=name,driver_version,temperature.gpu,clocks.sm,clocks.mem,power.draw --format=csv
epochs() { awk '/^ +[0-9]+ +[0-9.]+ +[0-9.]+%/{printf "%s ", $6}' $1; }
summ() { echo "$1: $(epochs $2)| $(grep -o '[0-9.]* ms per epoch (median)' $2) $(grep -o 'fingerprint [0-9a-f]*, chosen in [0-9.]* ms' $2) $(grep -c '^EXP' $2)"; }
one() { # name cache-dir env...
  local name=$1 dir=$2; shift 2
  env "$@" timeout 90 pack/exp_mnist_train $ARGS --tune-cache-dir $dir > $OUT/a/$name.txt 2>&1
  summ $name $OUT/a/$name.txt
}
for net in big default; do
  if [ $net = big ]; then ARGS="--hidden 4096,4096 --batch 4096 --precision fp8 --epochs 8 --show-plans"
  else ARGS="--epochs 5 --mode fused --show-plans"; fi
  for r in 1 2 3; do
    d=/tmp/tcA-$net-$r; rm -rf $d
    one $net-tune-$r $d
    one $net-read-$r $d
    one $net-apart-$r $d EXP_APART_MS=800
    one $net-spin-$r $d EXP_SPIN_MS=800
    one $net-late-$r $d EXP_LATE_MS=800
    one $net-read2-$r $d
  done
done
nvidia-smi --query-gpu=temperature.gpu,clocks.sm,clocks.mem,power.draw --format=csv
cd $OUT && tar -czf A-logs.tgz a && rm -rf a
