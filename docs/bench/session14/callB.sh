#!/bin/bash
# Session 14, device call B: call A found that a context apart (1 GiB, busy 800 ms, retired beside the graph
# capture) makes a process that read its set from the cache as fast as the one that tuned it; busy kernels in the
# run's own context do not. Which part of it? The experimental binary (exp_spin.patch) adds, besides call A's knobs:
#   EXP_APART_ALLOC_MB  what the context apart allocates (0: nothing; EXP_APART_MS=0: no busy kernels)
#   EXP_APART_SYNC      the context apart destroyed before the capture, not beside it
#   EXP_EARLY_APART     a context apart made and destroyed before the run allocates anything
#   EXP_HOLD_MB         that much held in the run's own context over the capture
# and CUDA_MODULE_LOADING=EAGER. Every process reads the set that the first one tuned.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
mkdir -p $OUT/b
epochs() { awk '/^ +[0-9]+ +[0-9.]+ +[0-9.]+%/{printf "%s ", $6}' $1; }
summ() { echo "$1: $(epochs $2)| $(grep -o '[0-9.]* ms per epoch (median)' $2) $(grep -o 'fingerprint [0-9a-f]*, chosen in [0-9.]* ms' $2) $(grep -o '[0-9.]* s wall clock' $2) $(grep '^EXP' $2 | tr '\n' ' ')"; }
one() { # name cache-dir env...
  local name=$1 dir=$2; shift 2
  env "$@" timeout 90 pack/exp_mnist_train $ARGS --tune-cache-dir $dir > $OUT/b/$name.txt 2>&1
  summ $name $OUT/b/$name.txt
}
for net in default big; do
  if [ $net = big ]; then ARGS="--hidden 4096,4096 --batch 4096 --precision fp8 --epochs 8 --show-plans"
  else ARGS="--epochs 5 --mode fused --show-plans"; fi
  d=/tmp/tcB-$net; rm -rf $d
  one $net-tune $d
  for r in 1 2; do
    one $net-read-$r $d
    one $net-apart-$r $d EXP_APART_MS=800
    one $net-bare-$r $d EXP_APART_MS=0 EXP_APART_ALLOC_MB=0
    one $net-sync-$r $d EXP_APART_MS=800 EXP_APART_SYNC=1
    one $net-early-$r $d EXP_EARLY_APART=1
    one $net-hold-$r $d EXP_HOLD_MB=1024
    one $net-eager-$r $d CUDA_MODULE_LOADING=EAGER
  done
done
# The loss kernel computing each sample's gradient once (layers/xent.cu, pack/build.tar.xz): its tests, the same
# digits as 3da4e15 (the experimental binary without knobs), its time in ncu, and the big FP8 run, old and new
# alternated, both reading the set tuned above.
tar -xJf pack/build.tar.xz
(cd build && ctest -R "test_mlp|fp8|readme|test_trainer" -j4 --output-on-failure 2>&1 | tail -25)
F="--precision fp8 --epochs 2 --autotune off --tune-cache off"
pack/exp_mnist_train $F > $OUT/b/digits-old.txt 2>&1; build/mnist_train $F > $OUT/b/digits-new.txt 2>&1
F="--precision fp8 --epochs 2 --autotune off --tune-cache off --hidden 4096,4096 --batch 4096"
pack/exp_mnist_train $F > $OUT/b/digits-big-old.txt 2>&1; build/mnist_train $F > $OUT/b/digits-big-new.txt 2>&1
for k in "" -big; do diff <(cut -c1-50 $OUT/b/digits$k-old.txt | grep -E "^ +[0-9]+ ") <(cut -c1-50 $OUT/b/digits$k-new.txt | grep -E "^ +[0-9]+ ") && echo "digits$k: the same"; done
ncu --clock-control none -k regex:xent_kernel --launch-skip 8 --launch-count 12 --metrics gpu__time_duration.sum,smsp__inst_executed.sum build/mnist_train $F > $OUT/b/ncu-new.txt 2>&1
ncu --clock-control none -k regex:xent_kernel --launch-skip 8 --launch-count 12 --metrics gpu__time_duration.sum,smsp__inst_executed.sum pack/exp_mnist_train $F > $OUT/b/ncu-old.txt 2>&1
grep -E "xent_kernel|gpu__time|inst_executed" $OUT/b/ncu-old.txt $OUT/b/ncu-new.txt | cut -c1-160
ARGS="--hidden 4096,4096 --batch 4096 --precision fp8 --epochs 8 --show-plans"
for r in 1 2 3; do
  one big-old-$r /tmp/tcB-big
  env timeout 90 build/mnist_train $ARGS --tune-cache-dir /tmp/tcB-big > $OUT/b/big-new-$r.txt 2>&1; summ big-new-$r $OUT/b/big-new-$r.txt
done
cd $OUT && tar -czf B-logs.tgz b && rm -rf b
