#!/bin/bash
# Session 5, device call I (3fb18e8, the build that ships): the GPU suite and test_step_tune; README's run; the
# default fp8 run; ncu of one FP8 step of the big network; every fp8 row of mnist_bench, a72cb34's binary
# (pack/base) against this build, alternated, two processes each; torchao compiled and graphed in the same call.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/gpu.txt
B=build/mnist_train
$B --epochs 5 > $OUT/readme_run.txt 2>&1; tail -1 $OUT/readme_run.txt
(cd build && timeout 200 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > $OUT/ctest.txt 2>&1
(cd build && timeout 90 ctest -R "test_step_tune" --output-on-failure) >> $OUT/ctest.txt 2>&1
grep -E "tests passed|\*\*\*|Assert|\.c:[0-9]+:|Failed" $OUT/ctest.txt | cut -c1-180 | tail -10
$B --epochs 5 --precision fp8 > $OUT/fp8_default.txt 2>&1; grep "^done" $OUT/fp8_default.txt | cut -c1-110
timeout 100 ncu --profile-from-start off --clock-control none --csv --page raw --print-units base --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
  build/mnist_bench --profile-step --precision fp8 --network big > $OUT/ncu_fp8.csv 2> $OUT/ncu_fp8.err; echo "ncu rc=$?"
mkdir -p $OUT/rows
for round in 1 2; do for b in a72 new; do
  [ $b = a72 ] && M=pack/base/mnist_bench || M=build/mnist_bench
  for n in big mid seed; do
    MNIST_TUNE_CACHE_DIR=/tmp/tc-$b timeout 60 $M --network $n --precision fp8 --no-layers --repeats 5 > $OUT/rows/$b-$n-$round.txt 2>&1 || echo "$b $n rc=$?"
  done
done; done
for f in $OUT/rows/*.txt; do echo "== $(basename $f)"; grep -E "^784" $f | cut -c1-80; done > $OUT/rows.txt
grep -A3 "new-big-" $OUT/rows.txt | cut -c1-72
(python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/torchao-*.whl && PYTHONPATH=/tmp/site timeout 90 python3 scripts/bench_pytorch.py --activations relu --repeats 3 --networks 4096-4096:4096 --precisions fp8 --variants compiled --json $OUT/torch_fp8.json) 2>&1 | grep -E "pytorch|rror" | cut -c1-150
cd $OUT && xz -9 ncu_fp8.csv && tar -czf logsI.tgz ctest.txt ncu_fp8.csv.xz ncu_fp8.err rows fp8_default.txt && rm -rf ctest.txt ncu_fp8.csv.xz ncu_fp8.err rows fp8_default.txt
