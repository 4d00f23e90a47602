#!/bin/bash
# Session 5, device call H (call F's cast + the loss kernel's FP8 cast by four threads per sample): the GPU tests
# of the FP8 step and the loss; ncu of one FP8 step of the big network; the default fp8 run's log, HEAD's binary
# and this build's (the digits must be equal).
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
(cd build && timeout 150 ctest -R "fp8|xent|sgd|mlp|train" -j4 --output-on-failure) > $OUT/ctest.txt 2>&1
grep -E "tests passed|\*\*\*|Assert|\.c:[0-9]+:|Failed" $OUT/ctest.txt | cut -c1-180 | tail -8
timeout 100 ncu --profile-from-start off --clock-control none --csv --page raw --print-units base --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
  build/mnist_bench --profile-step --precision fp8 --network big > $OUT/ncu_fp8.csv 2> $OUT/ncu_fp8.err; echo "ncu rc=$?"
timeout 100 ncu --profile-from-start off --clock-control none --csv --page raw --print-units base --metrics gpu__time_duration.sum \
  build/mnist_bench --profile-step --precision fp8 --network mid > $OUT/ncu_fp8_mid.csv 2> $OUT/ncu_fp8_mid.err; echo "ncu mid rc=$?"
for b in head new; do [ $b = head ] && M=pack/head/mnist_train || M=build/mnist_train
  $M --epochs 5 --precision fp8 > $OUT/fp8_$b.txt 2>&1; grep "^done" $OUT/fp8_$b.txt | cut -c1-110; done
diff <(awk '/^ +[0-9]+ /{print $1,$2,$3,$4,$5}' $OUT/fp8_head.txt) <(awk '/^ +[0-9]+ /{print $1,$2,$3,$4,$5}' $OUT/fp8_new.txt) && echo "fp8 epochs: same digits"
cd $OUT && xz -9 ncu_fp8.csv ncu_fp8_mid.csv && tar -czf logsH.tgz ctest.txt ncu_fp8* fp8_*.txt && rm -rf ctest.txt ncu_fp8* fp8_*.txt
