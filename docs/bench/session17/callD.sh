#!/bin/bash
# Session 17, device call D (the build that ships: call A's cast, comments since): the GPU suite and
# test_step_tune; test_fp8_cast under racecheck and memcheck; the default network's fp8 run (issue 28: >= 98.0 %
# in 5 epochs); every fp8 row of a72cb34 (pack/old), of session 16's build (c0b4272, pack/head) and of this
# build, a process per network, alternated (issue 28: each <= 1.01x its a72cb34 median); torchao compiled and
# graphed on the big fp8 ReLU row (issue 28: >= 1.55x).
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p /tmp/d
save() { tar -czf $OUT/D-logs.tgz -C /tmp d; }
gpu() { nvidia-smi --query-gpu=temperature.gpu,clocks.sm,clocks.mem,power.draw --format=csv,noheader; }
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) at start: $(gpu)"
(cd build && timeout 150 ctest -L gpu -E test_step_tune -j4 --output-on-failure > /tmp/d/ctest.txt 2>&1; echo "suite rc $?"; grep -E "tests passed|Failed|\*\*\*" /tmp/d/ctest.txt | head)
(cd build && timeout 120 ctest -R test_step_tune -V > /tmp/d/step_tune.txt 2>&1; echo "step_tune rc $?"; grep -E "tests passed|Checks" /tmp/d/step_tune.txt | tail -2)
for tool in racecheck memcheck; do
  CK_FORK=no timeout 150 compute-sanitizer --tool $tool --error-exitcode 1 build/tests/test_fp8_cast > /tmp/d/san_$tool.txt 2>&1
  echo "$tool rc $? $(grep -E 'SUMMARY|Checks' /tmp/d/san_$tool.txt | tr '\n' ' ')"
done
timeout 60 build/mnist_train --precision fp8 --epochs 5 > /tmp/d/fp8-default.txt 2>&1; echo "fp8 default: $(grep '^done' /tmp/d/fp8-default.txt)"
save
for net in seed mid big; do
  for b in old head new; do
    bin=build/mnist_bench; [ $b != new ] && bin=pack/$b/mnist_bench
    MNIST_TUNE_CACHE_DIR=/tmp/tcD-$b timeout 90 $bin --network $net --precision fp8 --no-layers --json /tmp/d/fp8-$b-$net.json > /tmp/d/fp8-$b-$net.txt 2>&1; echo "$b $net rc $? at $SECONDS s $(gpu)"
  done
done
save
python3 docs/bench/session16/fp8_rows.py /tmp/d > /tmp/d/fp8-rows.txt 2>&1; tail -25 /tmp/d/fp8-rows.txt
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/torchao-*.whl && export PYTHONPATH=/tmp/site
export TORCHINDUCTOR_CACHE_DIR=/tmp/tcache
S=$SECONDS
timeout 150 python3 scripts/bench_pytorch.py --networks 4096-4096:4096 --precisions fp8 --variants compiled --activations relu --repeats 5 --json /tmp/d/torchao.json > /tmp/d/torchao.txt 2>&1
echo "torchao rc $? after $((SECONDS - S)) s"; grep -E "ms/epoch" /tmp/d/torchao.txt | cut -c1-150
MNIST_TUNE_CACHE_DIR=/tmp/tcD-big2 timeout 90 build/mnist_bench --network big --precision fp8 --activation relu --no-layers --json /tmp/d/big-after-torchao.json > /tmp/d/big-after-torchao.txt 2>&1; echo "big fp8 again rc $?"; grep -E "^784-4096" /tmp/d/big-after-torchao.txt | cut -c1-90
save
