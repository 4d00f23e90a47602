#!/bin/bash
# Session 9, device call C (working tree: 39e9bcf + the loss kernel's last block): what holds the masked casts and
# SGD's FP8 pass (ncu's full set with source counters), and what a linear kernel with SGD's byte mix reaches.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p $OUT/c
pack/probe/bw > $OUT/c/bw.txt 2>&1; cat $OUT/c/bw.txt
timeout 200 ncu --profile-from-start off --clock-control none --set full --section SourceCounters --import-source no \
  --kernel-name regex:"fp8_cast_kernel|sgd_fp8_kernel|xent_kernel" --launch-count 4 \
  build/mnist_bench --profile-step --precision fp8 --network big > $OUT/c/ncu_full.txt 2>&1; echo "ncu rc=$?"
grep -E "^  [a-z_]+.*\(|Duration|Memory Throughput|DRAM Throughput|Registers Per|Achieved Occupancy|Warp Cycles Per Issued|Issued Warp" $OUT/c/ncu_full.txt | head -60
cd $OUT && tar -czf C.tgz c && rm -rf c
