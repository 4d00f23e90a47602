#!/bin/bash
# Session 5, device call G (call F + warp reductions in one instruction (sm_80+) and the zero count of the values only where
# the codes say a value may have flushed): the FP8 GPU tests; ncu of one FP8 step of the big network; the fp8 rows of every
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
(cd build && timeout 150 ctest -R "fp8|xent|sgd" -j4 --output-on-failure) > $OUT/ctest.txt 2>&1
grep -E "tests passed|\*\*\*|Assert|\.c:[0-9]+:|Failed" $OUT/ctest.txt | cut -c1-180 | tail -8
timeout 100 ncu --profile-from-start off --clock-control none --csv --page raw --print-units base --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
  build/mnist_bench --profile-step --precision fp8 --network big > $OUT/ncu_fp8.csv 2> $OUT/ncu_fp8.err; echo "ncu rc=$?"
mkdir -p $OUT/rows
for round in 1 2; do for b in head new; do
  [ $b = head ] && M=pack/head/mnist_bench || M=build/mnist_bench
  for n in big mid seed; do
    MNIST_TUNE_CACHE_DIR=/tmp/tc-$b timeout 60 $M --network $n --precision fp8 --no-layers --repeats 5 > $OUT/rows/$b-$n-$round.txt 2>&1 || echo "$b $n rc=$?"
  done
done; done
grep -h "^784-4096" $OUT/rows/*-big-*.txt | head -0
for f in $OUT/rows/*.txt; do echo "== $(basename $f)"; grep -E "^784" $f | cut -c1-80; done > $OUT/rows.txt
grep -A6 "big-" $OUT/rows.txt | grep -E "==|relu" | head -20
cd $OUT && xz -9 ncu_fp8.csv && tar -czf logsG.tgz ctest.txt ncu_fp8.csv.xz ncu_fp8.err rows && rm -rf ctest.txt ncu_fp8.csv.xz ncu_fp8.err rows
