#!/bin/bash
# Session 9, device call B: SGD's FP8 pass with every load of a thread issued before its stores, and the loss
# kernel's last block loading the partials together (working tree on 39e9bcf). The GPU suite on it (the FP8
# tests hold both bit for bit); ncu of one FP8 step of the big network, HEAD's build and this one; the big fp8
# row per mode, HEAD / new alternated; the step tuner at a 1 % algorithm floor (exp, sm_90 build of the same
# tree) against the 10 % floor: does the forward-2 algorithm's gain in the timed step show in the epoch?
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p /tmp/head && tar -xJf pack/head.tar.xz -C /tmp/head
mkdir -p $OUT/b
(cd build && timeout 200 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > $OUT/b/ctest.txt 2>&1
(cd build && timeout 90 ctest -R "test_step_tune" --output-on-failure) >> $OUT/b/ctest.txt 2>&1
grep -E "tests passed|\*\*\*|Assert|\.c:[0-9]+:|Failed" $OUT/b/ctest.txt | cut -c1-180 | tail -8
for b in head new; do
  [ $b = head ] && M=/tmp/head/build/mnist_bench || M=build/mnist_bench
  timeout 100 ncu --profile-from-start off --clock-control none --csv --page raw --print-units base --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
    $M --profile-step --precision fp8 --network big > $OUT/b/ncu_$b.csv 2> $OUT/b/ncu_$b.err; echo "ncu $b rc=$?"
  grep -E "sgd_fp8|xent" $OUT/b/ncu_$b.csv | awk -F'","' '{print $5, $NF}' | cut -c1-60 | head -4
done
for round in 1 2; do for b in head new; do
  [ $b = head ] && M=/tmp/head/build/mnist_bench || M=build/mnist_bench
  MNIST_TUNE_CACHE_DIR=/tmp/tc-$b timeout 80 $M --network big --precision fp8 --activation relu --no-layers --repeats 5 > $OUT/b/rows-$b-$round.txt 2>&1 || echo "$b rc=$?"
  echo "$b $round: $(grep -E '^784' $OUT/b/rows-$b-$round.txt | cut -c1-70 | tr -s ' ' | paste -sd'|')"
done; done
T="--hidden 4096,4096 --batch 4096 --precision fp8 --epochs 5 --tune-cache off --show-plans"
for round in 1 2 3; do for b in new exp; do
  [ $b = exp ] && M=pack/exp/mnist_train || M=build/mnist_train
  $M $T > $OUT/b/train-$b-$round.txt 2>&1
  echo "$b $round: $(grep -E '^done' $OUT/b/train-$b-$round.txt | cut -c1-100) $(grep -o 'fingerprint [0-9a-f]*' $OUT/b/train-$b-$round.txt)"
done; done
cd $OUT && tar -czf B.tgz b && rm -rf b
