#!/bin/bash
# Session 13, device call A: HEAD 2d61d30 (its host refactor of the rule's lines never ran on a GPU): the GPU suite
# and test_step_tune; ncu's full sections of the loss kernel in the big network's FP8 step (784-4096-4096-10,
# batch 4096), to see what holds its ~9-10 us.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p $OUT/a
(cd build && timeout 300 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > $OUT/a/ctest.txt 2>&1
grep -E "tests passed|\*\*\*|Assert|Failed" $OUT/a/ctest.txt | cut -c1-200 | tail -8
(cd build && timeout 120 ctest -R "test_step_tune" --output-on-failure -V) > $OUT/a/step_tune.txt 2>&1
echo "step_tune: $(grep -E 'tests passed' $OUT/a/step_tune.txt)"; grep -E "Assert|printed above" $OUT/a/step_tune.txt | cut -c1-220 | head -4
B="--hidden 4096,4096 --batch 4096 --precision fp8 --epochs 1 --tune-cache off --autotune off"
timeout 200 ncu --clock-control none --set full --import-source yes -k regex:"xent_kernel" --launch-skip 12 --launch-count 2 \
  build/mnist_train $B > $OUT/a/ncu_xent_full.txt 2>&1; echo "ncu xent rc=$?"
grep -E "Duration|Registers Per|Achieved Occupancy|Block Size|Grid Size|Warp Cycles Per Issued|Stall" $OUT/a/ncu_xent_full.txt | head -30
timeout 200 ncu --clock-control none --csv --page source --print-source sass -k regex:"xent_kernel" --launch-skip 12 --launch-count 1 \
  --section SourceCounters --section WarpStateStats build/mnist_train $B > $OUT/a/ncu_xent_sass.csv 2>&1; echo "ncu sass rc=$?"
cd $OUT && tar -czf A-logs.tgz a && rm -rf a
