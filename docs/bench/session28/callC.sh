#!/bin/bash
# Session 28, device call C: every 784-4096-4096-10 row under --against-off with --show-plans; the 784-1024-1024-10
# TF32 rows again in two processes; README's default run and the fp8 default run.
source docs/bench/session27/common.sh
call_start C
tar -xJf pack/build.tar.xz
S=$SECONDS
MNIST_TUNE_CACHE_DIR=/tmp/tc-c-big timeout 330 build/mnist_bench --data-dir data/mnist --no-layers --show-plans \
  --against-off --network big --json /tmp/c/big.json > /tmp/c/big.txt 2>&1
echo "bench big: rc $? in $((SECONDS - S)) s"
grep -E "^784-[0-9-]+ +[0-9]+ " /tmp/c/big.txt | sed -E 's/ +/ /g' | awk '{print $3, $4, $6}' > /tmp/c/h
grep -E "^784-[0-9-]+ +[0-9]+ " /tmp/c/big.txt | grep -oE "(([0-9.]+x (fused|unfused)'s speed|[0-9.]+x, [a-z+]+) +)?[0-9.]+x off's time.*" | paste -d' ' /tmp/c/h - | cut -c1-125
grep -c "off's set -> tuned" /tmp/c/big.txt
for p in 1 2; do
  S=$SECONDS
  MNIST_TUNE_CACHE_DIR=/tmp/tc-c-tf32-$p timeout 60 build/mnist_bench --data-dir data/mnist --no-layers --show-plans \
    --against-off --network mid --precision tf32 --json /tmp/c/tf32-$p.json > /tmp/c/tf32-$p.txt 2>&1
  echo "bench mid tf32 #$p: rc $? in $((SECONDS - S)) s"
  grep -E "^784-[0-9-]+ +[0-9]+ " /tmp/c/tf32-$p.txt | sed -E 's/ +/ /g' | awk '{print $3, $4}' > /tmp/c/h
  grep -E "^784-[0-9-]+ +[0-9]+ " /tmp/c/tf32-$p.txt | grep -oE "[0-9.]+x off's time.*" | paste -d' ' /tmp/c/h -
done
rm -rf $HOME/.cache/mnist-epilogs
timeout 30 build/mnist_train --data-dir data/mnist --epochs 5 > /tmp/c/readme_run.txt 2>&1; echo "readme run rc $?"
timeout 30 build/mnist_train --data-dir data/mnist --epochs 5 --precision fp8 > /tmp/c/fp8_run.txt 2>&1; echo "fp8 run rc $?"
grep -h "^done" /tmp/c/readme_run.txt /tmp/c/fp8_run.txt
echo "end at $SECONDS s"
