#!/bin/bash
# Session 21, device call D (the build that ships: the context cycle on by default in mnist_train, layers/*fp8*
# comments cut to the house style): README's run as the call's first process, test_readme_run; a run that reads
# the cache against the first run, now and with --no-context-cycle (the default network, fp8 ReLU and GELU, fp32);
# test_step_tune's changed cycle case on 410c011's mnist_train (pack/old410); the GPU suite and test_step_tune;
# README's table: scripts/bench_compare.sh --no-layers --show-plans once (ReLU rows; torchao for fp8).
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p /tmp/d
save() { tar -czf $OUT/D-logs.tgz -C /tmp d; }
gpu() { nvidia-smi --query-gpu=temperature.gpu,clocks.sm,clocks.mem,power.draw --format=csv,noheader; }
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) at start: $(gpu)"
build/mnist_train --epochs 5 > /tmp/d/readme_run.txt 2>&1; tail -1 /tmp/d/readme_run.txt
(cd build && timeout 60 ctest -R "test_readme_run" --output-on-failure) > /tmp/d/readme_test.txt 2>&1; grep -E "tests passed" /tmp/d/readme_test.txt
run() { # name, flags...
  local n=$1; shift
  MNIST_TUNE_CACHE_DIR=/tmp/tc-$cfg timeout 60 build/mnist_train --epochs 5 --show-plans "$@" > /tmp/d/$cfg-$r-$n.txt 2>&1
  printf "%-7s %s %-9s %s | %s | %s\n" $cfg $r $n "$(grep '^done' /tmp/d/$cfg-$r-$n.txt | sed -E 's/.*accuracy ([0-9.]+%).*, ([0-9.]+ ms) per epoch.*; ([0-9.]+ s) wall.*/\1 \2 \3/')" \
    "$(grep -oE 'fingerprint [0-9a-f]+' /tmp/d/$cfg-$r-$n.txt | head -1)" "$(grep -oE 'context cycle: .* in [0-9.]+ ms' /tmp/d/$cfg-$r-$n.txt | grep -oE '[0-9.]+ ms')"
}
for r in 1 2; do
  for cfg in fp8relu fp8gelu fp32; do
    case $cfg in fp8relu) F="--precision fp8";; fp8gelu) F="--precision fp8 --activation gelu";; fp32) F="";; esac
    rm -rf /tmp/tc-$cfg
    run first $F
    run cached $F
    run nocycle $F --no-context-cycle
    run off $F --autotune off
    run offnocyc $F --autotune off --no-context-cycle
  done
done
save
D=data/mnist
pack/old410/mnist_train --data-dir $D --hidden 256 --epochs 1 --show-plans --autotune off --tune-cache off > /tmp/d/old-cycle.txt 2>&1
echo "410c011 --autotune off: rc $?, context cycle lines $(grep -c 'context cycle: a CUDA context made and destroyed' /tmp/d/old-cycle.txt)"
pack/old410/mnist_train --data-dir $D --epochs 1 --no-context-cycle > /tmp/d/old-nocycle.txt 2>&1; echo "410c011 --no-context-cycle: rc $?: $(head -1 /tmp/d/old-nocycle.txt | cut -c1-100)"
(cd build && timeout 200 ctest -L gpu -E "test_step_tune|test_readme_run" -j4 --output-on-failure > /tmp/d/ctest.txt 2>&1; echo "suite rc $? at $SECONDS s"; grep -E "tests passed|Failed|\*\*\*" /tmp/d/ctest.txt | head)
(cd build && timeout 150 ctest -R test_step_tune -V > /tmp/d/step_tune.txt 2>&1; echo "step_tune rc $? at $SECONDS s"; grep -E "tests passed|held|Checks" /tmp/d/step_tune.txt | cut -c1-170)
save
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/torchao-*.whl && export PYTHONPATH=/tmp/site
export TORCHINDUCTOR_CACHE_DIR=/tmp/tcache
R=/tmp/d/r1; mkdir -p $R; S=$SECONDS
BENCH_JSON_DIR=$R TORCH_BENCH_FLAGS="--activations relu" MNIST_TUNE_CACHE_DIR=/tmp/tune-r1 timeout $((585 - SECONDS)) scripts/bench_compare.sh build --no-layers --show-plans > $R/compare.log 2>&1
echo "bench_compare: rc $? after $((SECONDS - S)) s $(gpu)"
grep -E "^784" $R/compare.log | head -15 | cut -c1-170
save
