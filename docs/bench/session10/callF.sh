#!/bin/bash
# Session 10, device call F (experiment, pack/exp10 as in call D): the default network FP32 fused, algorithm
# floor 2 %: does the timed step's verdict on data grad 3->2's candidate #3 follow the sample's length (4, 32, 128
# steps a replay)? And do the two choice sets run at other clocks or power over 20 epochs?
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
E=pack/exp10/mnist_train
mkdir -p $OUT/f
common="--epochs 3 --tune-cache off --show-plans --tune-budget 4000"
for r in 1 2; do
  for s in 4 32 128; do
    MNIST_EXP_STEPS=$s MNIST_EXP_ALGO_FLOOR=0.02 timeout 60 $E $common > $OUT/f/def-s$s-$r.txt 2>&1
  done
done
for f in $OUT/f/def-*.txt; do
  echo "$(basename $f .txt): $(grep -o '[0-9.]* ms per epoch (median)' $f) $(grep -o 'fingerprint [0-9a-f]*' $f)"
  grep -E "data grad 3->2 algo|: wins" $f | cut -c1-150
done
MNIST_EXP_ALGO_FLOOR=0.02 $E --epochs 1 --tune-cache-dir /tmp/tcA --show-plans 2>&1 | grep -o 'fingerprint [0-9a-f]*'
$E --epochs 1 --tune-cache-dir /tmp/tcB --show-plans 2>&1 | grep -o 'fingerprint [0-9a-f]*'
for r in 1 2; do
  for c in A B; do
    nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu --format=csv,noheader -lms 10 > $OUT/f/smi-$c-$r.csv &
    pid=$!; sleep 0.5
    MNIST_EXP_ALGO_FLOOR=0.02 $E --epochs 30 --tune-cache-dir /tmp/tc$c > $OUT/f/long-$c-$r.txt 2>&1
    kill $pid; wait $pid 2>/dev/null
    echo "long $c $r: $(grep -o '[0-9.]* ms per epoch (median)' $OUT/f/long-$c-$r.txt)"
  done
done
cd $OUT && tar -czf F-logs.tgz f && rm -rf f
