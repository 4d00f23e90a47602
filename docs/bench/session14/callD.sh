#!/bin/bash
# Session 14, device call D: the build that ships (the context cycle: trainer_config.context_cycle, mnist_train
# --context-cycle, on by default in mnist_bench). The GPU suite and test_step_tune; the default network fused: a first
# run (tunes apart), runs reading its cache without and with --context-cycle, --autotune off without and with it,
# two rounds; the big FP8 network the same way, one round; the big fp8 bench row around torchao compiled and
# graphed: a process that tunes, processes that read the cache (cycle on, the default), one with --no-context-cycle.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p $OUT/d
gpu() { nvidia-smi --query-gpu=temperature.gpu,clocks.sm,clocks.mem,power.draw --format=csv,noheader; }
echo "gpu at start: $(gpu)"
(cd build && ctest -L gpu -E test_step_tune -j4 --output-on-failure > $OUT/d/ctest.txt 2>&1; echo "suite rc $?"; grep -E "tests passed|Failed|\*\*\*" $OUT/d/ctest.txt | head)
(cd build && ctest -R test_step_tune -V > $OUT/d/step_tune.txt 2>&1; echo "step_tune rc $?"; grep -E "tests passed|Checks|context" $OUT/d/step_tune.txt | tail -4)
epochs() { awk '/^ +[0-9]+ +[0-9.]+ +[0-9.]+%/{printf "%s ", $6}' $1; }
summ() { echo "$1: $(epochs $2)| $(grep -o '[0-9.]* ms per epoch (median)' $2 | cut -d' ' -f1) $(grep -o 'test accuracy [0-9.]*%' $2) $(grep -o '[0-9.]* s wall clock' $2) $(grep -o 'fingerprint [0-9a-f]*' $2) $(grep -o 'context cycle: .*' $2)"; }
one() { local name=$1; shift; timeout 90 build/mnist_train "$@" --show-plans > $OUT/d/$name.txt 2>&1; summ $name $OUT/d/$name.txt; }
for r in 1 2; do
  d=/tmp/tcD-def-$r; rm -rf $d
  one def-tune-$r --epochs 5 --tune-cache-dir $d
  one def-read-$r --epochs 5 --tune-cache-dir $d
  one def-readcycle-$r --epochs 5 --tune-cache-dir $d --context-cycle
  one def-off-$r --epochs 5 --autotune off --tune-cache off
  one def-offcycle-$r --epochs 5 --autotune off --tune-cache off --context-cycle
done
B="--hidden 4096,4096 --batch 4096 --precision fp8 --epochs 8"
d=/tmp/tcD-big; rm -rf $d
one big-tune $B --tune-cache-dir $d
one big-read $B --tune-cache-dir $d
one big-readcycle $B --tune-cache-dir $d --context-cycle
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/torchao-*.whl && export PYTHONPATH=/tmp/site
F="--network big --precision fp8 --activation relu --no-layers --repeats 5"
ours() { echo "gpu before ours $1: $(gpu)"; MNIST_TUNE_CACHE_DIR=/tmp/tcD-bench timeout 120 build/mnist_bench $F $2 --json $OUT/d/ours-fp8-$1.json > $OUT/d/ours-fp8-$1.txt 2>&1; echo "ours $1 rc $?"; grep -E "^784-4096|context cycle" $OUT/d/ours-fp8-$1.txt | cut -c1-100; }
rm -rf /tmp/tcD-bench
ours 1 ""; ours 2 ""
echo "gpu before torch: $(gpu)"
timeout 240 python3 scripts/bench_pytorch.py --networks 4096-4096:4096 --precisions fp8 --variants compiled --activations relu --repeats 5 --json $OUT/d/torch-fp8.json > $OUT/d/torch-fp8.txt 2>&1; echo "torch rc $?"; tail -3 $OUT/d/torch-fp8.txt | cut -c1-220
ours 3 ""; ours 4 --no-context-cycle; ours 5 ""
cd $OUT && tar -czf D-logs.tgz d && rm -rf d
