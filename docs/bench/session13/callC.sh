#!/bin/bash
# Session 13, device call C: call B's tree plus near winners nominated at 2 x the noise (TUNE_NEAR_K). The GPU
# suite and test_step_tune; mnist_bench's seed and mid rows tuned then off; the TF32 ReLU row of
# 784-1024-1024-10 tuned twice more; FP8 784-1024-1024-10 ReLU fused against auto in mnist_train (same choices,
# auto 1-2 % behind in the bench) with ncu's kernel list of each; the big fp8 row: tuned, cached, torchao, cached,
# 30 s idle, cached, with the GPU's temperature and clocks before each (is a later process slower for the
# cache or for the heat?); the default run's auto first run, three more.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p $OUT/c
(cd build && timeout 300 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > $OUT/c/ctest.txt 2>&1
grep -E "tests passed|\*\*\*|Assert|Failed" $OUT/c/ctest.txt | cut -c1-200 | tail -6
(cd build && timeout 120 ctest -R "test_step_tune" --output-on-failure -V) > $OUT/c/step_tune.txt 2>&1
echo "step_tune: $(grep -E 'tests passed' $OUT/c/step_tune.txt)"; grep -E "Assert|differ only|printed above" $OUT/c/step_tune.txt | cut -c1-220 | head -4
summ() { echo "$1: $(grep -o '[0-9.]* ms per epoch (median)' $2) $(grep -o 'test accuracy [0-9.]*%' $2) $(grep -o '[0-9.]* s wall clock' $2) $(grep -o 'fingerprint [0-9a-f]*, chosen in [0-9.]* ms' $2)"; grep -E "fresh context|near winners" $2 | cut -c1-260 | head -3; }
gpu() { nvidia-smi --query-gpu=temperature.gpu,clocks.sm,clocks.mem,power.draw,clocks_throttle_reasons.active --format=csv,noheader; }
for net in seed mid; do
  for cfg in new off; do
    s=$(date +%s)
    if [ $cfg = off ]; then a="--autotune off"; else a="--tune-cache off --show-plans"; fi
    timeout 150 build/mnist_bench --network $net --no-layers $a --json $OUT/c/$cfg-$net.json > $OUT/c/$cfg-$net.txt 2>&1; echo "$cfg $net rc $? $(( $(date +%s) - s )) s"
  done
done
for r in 1 2; do
  timeout 100 build/mnist_bench --network mid --precision tf32 --activation relu --no-layers --tune-cache off --show-plans > $OUT/c/tf32-new-$r.txt 2>&1
  timeout 100 build/mnist_bench --network mid --precision tf32 --activation relu --no-layers --autotune off > $OUT/c/tf32-off-$r.txt 2>&1
  grep -E "^784-1024.*(fused|auto) " $OUT/c/tf32-new-$r.txt $OUT/c/tf32-off-$r.txt | cut -c1-110; grep -E "near winners" $OUT/c/tf32-new-$r.txt | cut -c1-200
done
M="--hidden 1024,1024 --batch 256 --precision fp8 --epochs 5 --tune-cache off --autotune off"
for r in 1 2; do for m in fused auto; do
  timeout 60 build/mnist_train $M --mode $m > $OUT/c/fp8mid-$m-$r.txt 2>&1; summ fp8mid-$m-$r $OUT/c/fp8mid-$m-$r.txt
done; done
for m in fused auto; do
  timeout 120 ncu --clock-control none --csv --page raw --print-units base --metrics gpu__time_duration.sum --launch-skip 3000 --launch-count 60 \
    build/mnist_train $M --epochs 2 --mode $m > $OUT/c/ncu-fp8mid-$m.csv 2>&1; echo "ncu $m rc=$?"
done
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/torchao-*.whl && export PYTHONPATH=/tmp/site
F="--network big --precision fp8 --activation relu --no-layers --repeats 5"
ours() { echo "gpu before ours $1: $(gpu)"; MNIST_TUNE_CACHE_DIR=/tmp/tc-big timeout 90 build/mnist_bench $F --json $OUT/c/ours-fp8-$1.json > $OUT/c/ours-fp8-$1.txt 2>&1; echo "ours $1 rc $?"; grep -E "^784-4096" $OUT/c/ours-fp8-$1.txt | cut -c1-90; }
ours 1; ours 2
echo "gpu before torch: $(gpu)"
timeout 240 python3 scripts/bench_pytorch.py --networks 4096-4096:4096 --precisions fp8 --variants compiled --activations relu --repeats 5 --json $OUT/c/torch-fp8-1.json > $OUT/c/torch-fp8-1.txt 2>&1; echo "torch rc $?"; tail -1 $OUT/c/torch-fp8-1.txt | cut -c1-200
ours 3; sleep 30; ours 4
for r in 1 2 3; do
  f=$OUT/c/def-auto-$r.txt; timeout 60 build/mnist_train --epochs 5 --show-plans --tune-cache-dir /tmp/tca-$r --mode auto > $f 2>&1; summ def-auto-$r $f
done
cd $OUT && tar -czf C-logs.tgz c && rm -rf c
