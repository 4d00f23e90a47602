#!/bin/bash
# Session 19, device call D (47ef9ee, as call C): the big fp8 row against torchao compiled and graphed alone,
# three rounds of scripts/bench_compare.sh limited to that pair (ours then the peer, each round a process each;
# issue 28's 1.55x and 8.5 ms in the same call, with their spread), then test_step_tune twice and the command its
# auto_is_never_behind case runs three times, with --show-plans (call C's run failed it: auto 10.29 against unfused 10.27, spread 0.01).
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p /tmp/d
save() { tar -czf $OUT/D-logs.tgz -C /tmp d; }
gpu() { nvidia-smi --query-gpu=temperature.gpu,clocks.sm,clocks.mem,power.draw --format=csv,noheader; }
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) at start: $(gpu)"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/torchao-*.whl && export PYTHONPATH=/tmp/site
export TORCHINDUCTOR_CACHE_DIR=/tmp/tcache
for i in 1 2 3; do
  R=/tmp/d/fp8-$i; mkdir -p $R
  BENCH_JSON_DIR=$R TORCH_BENCH_FLAGS="--networks 4096-4096:4096 --precisions fp8 --variants compiled --activations relu" \
    MNIST_TUNE_CACHE_DIR=/tmp/tune-d$i timeout 150 scripts/bench_compare.sh build -- --no-layers --network big --precision fp8 --activation relu > $R/compare.log 2>&1
  echo "round $i rc $? at $SECONDS s $(gpu)"; grep -E "^784-4096-4096-10 +4096 fp8 " $R/compare.log | cut -c1-170
  save
done
for i in 1 2; do
  (cd build && timeout 120 ctest -R test_step_tune --output-on-failure > /tmp/d/step_tune-$i.txt 2>&1; echo "step_tune $i rc $?"; grep -E "tests passed|never_behind" /tmp/d/step_tune-$i.txt | tail -2)
done
for i in 1 2 3; do
  timeout 60 build/mnist_bench --data-dir data/mnist --network seed --precision fp32 --activation relu --no-layers --repeats 5 --tune-cache off --show-plans > /tmp/d/seed-$i.txt 2>&1
  echo "seed $i rc $?"; grep -E "^784-100-10 .*(fused|unfused|auto) " /tmp/d/seed-$i.txt | cut -c1-80
done
save
