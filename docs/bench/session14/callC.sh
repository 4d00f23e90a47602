#!/bin/bash
# Session 14, device call C: call B found that an empty context apart (the tuner's gpu_context, no network) made
# and destroyed after the run's buffers gives a process that read the cache the tuned process's speed, one made and
# destroyed before the buffers does not. Is a bare driver context (cuCtxCreate, cuCtxDestroy: gpu_apart_create)
# enough, and may it be made on a thread of its own while the warm-up runs (no wall clock)? Knobs of the
# experimental binary (exp_spin.patch): EXP_RAW (a bare context after the tuner, on the main thread), EXP_RAW_THREAD
# (a bare context on a thread started right after the buffers, joined before the capture), and call B's EXP_APART_*.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
mkdir -p $OUT/c
epochs() { awk '/^ +[0-9]+ +[0-9.]+ +[0-9.]+%/{printf "%s ", $6}' $1; }
summ() { echo "$1: $(epochs $2)| $(grep -o '[0-9.]* ms per epoch (median)' $2 | cut -d' ' -f1) $(grep -o '[0-9.]* s wall clock' $2) $(grep '^EXP' $2 | tr '\n' ' ')"; }
one() { # name cache-dir env...
  local name=$1 dir=$2; shift 2
  env "$@" timeout 90 pack/exp_mnist_train $ARGS --tune-cache-dir $dir > $OUT/c/$name.txt 2>&1
  summ $name $OUT/c/$name.txt
}
for net in default big; do
  if [ $net = big ]; then ARGS="--hidden 4096,4096 --batch 4096 --precision fp8 --epochs 8 --show-plans"
  else ARGS="--epochs 5 --mode fused --show-plans"; fi
  d=/tmp/tcC-$net; rm -rf $d
  one $net-tune $d
  for r in 1 2 3; do
    one $net-read-$r $d
    one $net-bare-$r $d EXP_APART_MS=0 EXP_APART_ALLOC_MB=0
    one $net-raw-$r $d EXP_RAW=1
    one $net-rawthread-$r $d EXP_RAW_THREAD=1
  done
done
ARGS="--epochs 5 --mode fused --autotune off --tune-cache off"
for r in 1 2; do
  one off-$r /tmp/none
  one off-raw-$r /tmp/none EXP_RAW=1
  one off-rawthread-$r /tmp/none EXP_RAW_THREAD=1
done
cd $OUT && tar -czf C-logs.tgz c && rm -rf c
