#!/bin/bash
# Session 28, device call A: auto with a rule runs the search --autotune off runs first and weighs the whole search's
# end against off's set. test_step_tune alone (verbose), then the 784-1024-1024-10 TF32 rows (ReLU, GELU) under
# --against-off with --show-plans in two processes, then the default network's auto first run.
source docs/bench/session27/common.sh
call_start A
tar -xJf pack/build.tar.xz
S=$SECONDS
(cd build && timeout 280 ctest -R "test_step_tune|test_tune_against_off" -V) > /tmp/a/step_tune.txt 2>&1
echo "test_step_tune in $((SECONDS - S)) s:"
grep -E "tests passed|Checks|\*\*\*|Assert|\.c:[0-9]+:|Failed|a fresh context|off's set -> tuned" /tmp/a/step_tune.txt | cut -c1-200 | tail -14
for p in 1 2; do
  S=$SECONDS
  timeout 150 build/mnist_bench --data-dir data/mnist --no-layers --show-plans --tune-cache off \
    --against-off --network mid --precision tf32 --json /tmp/a/tf32-$p.json > /tmp/a/tf32-$p.txt 2>&1
  echo "bench mid tf32 #$p: rc $? in $((SECONDS - S)) s"
  grep -E "^784-[0-9-]+ +[0-9]+ " /tmp/a/tf32-$p.txt | grep -E "auto" | sed -E 's/ +/ /g' | cut -c1-60
  grep -E "^784-[0-9-]+ +[0-9]+ " /tmp/a/tf32-$p.txt | grep -oE "[0-9.]+x off's time.*"
  grep -E "^step tuner: fingerprint|^against off: its|off's set -> tuned|a fresh context" /tmp/a/tf32-$p.txt | cut -c1-150
done
S=$SECONDS
timeout 60 build/mnist_train --data-dir data/mnist --epochs 5 --mode auto --tune-cache off --show-plans > /tmp/a/train-auto.txt 2>&1
echo "mnist_train auto: rc $? in $((SECONDS - S)) s"
grep -E "^done|^step tuner|off's set -> tuned|a fresh context" /tmp/a/train-auto.txt | cut -c1-200
echo "end at $SECONDS s"
