#!/bin/bash
# Session 11, device call E: call D's build; mnist_bench's big rows tuned (--show-plans, a first run) then off.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p $OUT/e
for cfg in new off; do
  s=$(date +%s)
  if [ $cfg = off ]; then a="--autotune off"; else a="--tune-cache off --show-plans"; fi
  timeout 120 build/mnist_bench --network big --no-layers $a --json $OUT/e/$cfg-big.json > $OUT/e/$cfg-big.txt 2>&1; echo "$cfg big rc $? $(( $(date +%s) - s )) s"
done
grep -E "^784-4096.*fp8" $OUT/e/new-big.txt $OUT/e/off-big.txt | cut -c1-110
cd $OUT && tar -czf E-logs.tgz e && rm -rf e
