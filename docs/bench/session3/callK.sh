#!/bin/bash
# Session 3, device call K: every mnist_bench row (3 networks x 5 precisions x relu/gelu, fused/unfused/auto and +pad):
# this build tuned (fresh cache), this build with --autotune off, a72cb34's (exact, tuned alone); auto's choices at 784-1024-1024-10 bf16.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
for m in auto unfused; do build/mnist_train --hidden 1024,1024 --batch 256 --precision bf16 --mode $m --epochs 1 --show-plans --tune-cache off 2>&1 | sed -n '/step tuner:/,$p' | cut -c1-150; done > $OUT/mid_bf16_plans.txt
grep -E "step tuner|evidence|kept challenger|won|two steps|fused ->" $OUT/mid_bf16_plans.txt | head -20
s=$(date +%s)
MNIST_TUNE_CACHE_DIR=/tmp/tck timeout 240 build/mnist_bench --no-layers --repeats 5 --json $OUT/ours.json > $OUT/bench_new.txt 2>&1; echo "new rc=$? $(( $(date +%s) - s )) s"
s=$(date +%s)
timeout 170 build/mnist_bench --no-layers --repeats 5 --autotune off --json $OUT/ours_off.json > $OUT/bench_off.txt 2>&1; echo "off rc=$? $(( $(date +%s) - s )) s"
s=$(date +%s)
timeout 170 pack/base/mnist_bench --no-layers --repeats 5 > $OUT/bench_a72.txt 2>&1; echo "a72 rc=$? $(( $(date +%s) - s )) s"
grep -c "^784" $OUT/bench_new.txt $OUT/bench_off.txt $OUT/bench_a72.txt
