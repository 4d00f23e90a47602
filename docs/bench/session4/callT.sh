#!/bin/bash
# Session 4, device call T: experiment build (call S's plus two temporary switches, uncommitted):
# MNIST_X_SPARE 0: the context apart made after the run's set-up and destroyed there (d936e9f); 1: the same,
# destroyed on a thread of its own while the graphs are captured; 2: made on the warm thread while the data loads
# (call S); 3: made on the warm thread and destroyed before the run's set-up (the tuner then makes its own as in 0).
# MNIST_X_FLOOR / MNIST_X_WAYFLOOR: the whole-step floor (1.5 %) and the per-call way floor (10 %) for --mode auto.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
B=build/mnist_train
MNIST_X_SPARE=0 timeout 20 $B --epochs 1 --tune-cache-dir /tmp/tc > /dev/null 2>&1
E="env MNIST_X_SPARE"
timeout 150 scripts/ab_tune.sh --rounds 5 --log $OUT/ab -- off="$B --autotune off" \
  first0="$E=0 $B --tune-cache off" first1="$E=1 $B --tune-cache off" first2="$E=2 $B --tune-cache off" first3="$E=3 $B --tune-cache off" \
  cached0="$E=0 $B --tune-cache-dir /tmp/tc" cached1="$E=1 $B --tune-cache-dir /tmp/tc" cached2="$E=2 $B --tune-cache-dir /tmp/tc" cached3="$E=3 $B --tune-cache-dir /tmp/tc" > $OUT/ab.txt 2>&1
cat $OUT/ab.txt
export MNIST_X_SPARE=0
mkdir -p $OUT/rows
for r in 1 2; do for g in "seed tf32" "seed fp16" "big tf32" "big fp16"; do set -- $g
  timeout 40 build/mnist_bench --no-layers --repeats 5 --network $1 --precision $2 --tune-cache off > $OUT/rows/$1-$2-base-$r.txt 2>&1 || echo "base $g rc=$?"
  MNIST_X_FLOOR=0.005 MNIST_X_WAYFLOOR=0.03 timeout 40 build/mnist_bench --no-layers --repeats 5 --network $1 --precision $2 --tune-cache off > $OUT/rows/$1-$2-floor-$r.txt 2>&1 || echo "floor $g rc=$?"
done; done
MNIST_X_FLOOR=0.005 MNIST_X_WAYFLOOR=0.03 $B --hidden 100 --batch 256 --precision tf32 --mode auto --tune-cache off --show-plans > $OUT/seed_tf32_auto_floor.txt 2>&1; tail -8 $OUT/seed_tf32_auto_floor.txt
cd $OUT && tar -czf logsT.tgz ab rows seed_tf32_auto_floor.txt && rm -rf ab rows
