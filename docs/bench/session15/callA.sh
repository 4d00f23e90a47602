#!/bin/bash
# Session 15, device call A: the cast kernel casting several tiles a block (as many blocks as the GPU holds, the
# next tile's loads issued before this one is converted). The GPU suite and test_step_tune; ncu of one FP8 step
# of the big network, a161c3b's mnist_bench (pack/head) and this one; the big fp8 bench row, this build against
# a161c3b's, two rounds, around torchao compiled and graphed; the default network's fp8 run.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p $OUT/a
gpu() { nvidia-smi --query-gpu=temperature.gpu,clocks.sm,clocks.mem,power.draw --format=csv,noheader; }
echo "gpu at start: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader), $(gpu)"
(cd build && timeout 280 ctest -L gpu -E test_step_tune -j4 --output-on-failure > $OUT/a/ctest.txt 2>&1; echo "suite rc $?"; grep -E "tests passed|Failed|\*\*\*" $OUT/a/ctest.txt | head)
(cd build && timeout 120 ctest -R test_step_tune -V > $OUT/a/step_tune.txt 2>&1; echo "step_tune rc $?"; grep -E "tests passed|Checks" $OUT/a/step_tune.txt | tail -2)
for b in new head; do
  bin=build/mnist_bench; [ $b = head ] && bin=pack/head/mnist_bench
  timeout 100 ncu --profile-from-start off --clock-control none --csv --page raw --print-units base --metrics gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum \
    $bin --profile-step --precision fp8 --network big > $OUT/a/ncu_$b.csv 2> $OUT/a/ncu_$b.err; echo "ncu $b rc=$?"
  grep -E "fp8_cast_kernel|fp8_transpose|sgd_fp8|xent" $OUT/a/ncu_$b.csv | awk -F'","' '{print substr($5,1,50), $(NF-2), $(NF-1), $NF}' | head -8
done
F="--network big --precision fp8 --activation relu --no-layers --repeats 5"
ours() { local bin=build/mnist_bench; [ $1 = head ] && bin=pack/head/mnist_bench
  MNIST_TUNE_CACHE_DIR=/tmp/tcA-$1 timeout 120 $bin $F --json $OUT/a/rows-$1-$2.json > $OUT/a/rows-$1-$2.txt 2>&1; echo "$1 $2 rc $? $(gpu)"; grep -E "^784-4096" $OUT/a/rows-$1-$2.txt | cut -c1-100; }
ours new 1; ours head 1
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/torchao-*.whl && export PYTHONPATH=/tmp/site
timeout 240 python3 scripts/bench_pytorch.py --networks 4096-4096:4096 --precisions fp8 --variants compiled --activations relu --repeats 5 --json $OUT/a/torch-fp8.json > $OUT/a/torch-fp8.txt 2>&1; echo "torch rc $?"; tail -2 $OUT/a/torch-fp8.txt | cut -c1-220
ours head 2; ours new 2
timeout 60 build/mnist_train --precision fp8 --epochs 5 > $OUT/a/fp8-default.txt 2>&1; echo "fp8 default: $(grep -o 'test accuracy [0-9.]*%' $OUT/a/fp8-default.txt) $(grep -o '[0-9.]* ms per epoch (median)' $OUT/a/fp8-default.txt)"
cd $OUT && xz -9 a/ncu_*.csv && tar -czf A-logs.tgz a && rm -rf a
