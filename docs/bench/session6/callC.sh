#!/bin/bash
# Session 6, device call C (75725da): two findings of calls A-B, examined. (1) 784-4096-4096-10 TF32 GELU: auto
# 2.8 % behind unfused in all three runs: --show-plans of a first run in each mode, alternated, twice. (2)
# 784-100-10 FP32 unfused took 14.67 ms per epoch in run 2 (10.33, 10.35 in the others): five first runs
# (--tune-cache off) with --show-plans, fingerprints and epochs.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p $OUT/c
B="build/mnist_train --hidden 4096,4096 --batch 4096 --precision tf32 --activation gelu --epochs 3 --tune-cache off --show-plans"
for r in 1 2; do for m in auto unfused fused; do
  timeout 60 $B --mode $m > $OUT/c/big_tf32_gelu_${m}_$r.txt 2>&1
  echo "big tf32 gelu $m $r: $(grep -E '^done' $OUT/c/big_tf32_gelu_${m}_$r.txt | cut -c1-100) | $(grep -m1 fingerprint $OUT/c/big_tf32_gelu_${m}_$r.txt | cut -c1-60)"
done; done
S="build/mnist_train --hidden 100 --batch 256 --epochs 3 --tune-cache off --show-plans"
for r in 1 2 3 4 5; do
  timeout 30 $S --mode unfused > $OUT/c/seed_fp32_unfused_$r.txt 2>&1
  echo "seed fp32 unfused $r: $(grep -E '^done' $OUT/c/seed_fp32_unfused_$r.txt | cut -c1-100) | $(grep -m1 fingerprint $OUT/c/seed_fp32_unfused_$r.txt | cut -c1-60)"
done
cd $OUT && tar -czf C-logs.tgz c && rm -rf c
