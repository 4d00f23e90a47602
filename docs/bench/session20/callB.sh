#!/bin/bash
# Session 20, device call B (3dec422: 4ad31bb's tune_auto_start and the layers/*fp8* cut to 1897 lines):
# the GPU suite, test_step_tune, test_fp8_cast and test_sgd_fp8 under racecheck and memcheck (fp8_block_record now
# sums through shared atomics; sgd_fp8 stores whole words), the default network's fp8 runs (digits as before:
# ReLU 98.41 %, GELU 98.36 %); issue 27: 784-1024-1024-10 FP32 GELU with --show-plans twice, the default network's
# auto first run three times (wall clock, fingerprint, no check where unfused wins by over 3 %); then two rounds of
# the big fp8 pair (ours, torchao compiled and graphed).
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p /tmp/b
save() { tar -czf $OUT/B-logs.tgz -C /tmp b; }
gpu() { nvidia-smi --query-gpu=temperature.gpu,clocks.sm,clocks.mem,power.draw --format=csv,noheader; }
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) at start: $(gpu)"
(cd build && timeout 200 ctest -L gpu -E "test_step_tune|test_readme_run" -j4 --output-on-failure > /tmp/b/ctest.txt 2>&1; echo "suite rc $? at $SECONDS s"; grep -E "tests passed|Failed|\*\*\*" /tmp/b/ctest.txt | head)
(cd build && timeout 120 ctest -R test_step_tune --output-on-failure > /tmp/b/step_tune.txt 2>&1; echo "step_tune rc $?"; grep -E "tests passed|held|spread" /tmp/b/step_tune.txt | tail -2)
for t in test_fp8_cast test_sgd_fp8; do
  for tool in racecheck memcheck; do
    CK_FORK=no timeout 120 compute-sanitizer --tool $tool --error-exitcode 1 build/tests/$t > /tmp/b/san_$t-$tool.txt 2>&1
    echo "$t $tool rc $? $(grep -E 'SUMMARY|Checks' /tmp/b/san_$t-$tool.txt | tr '\n' ' ')"
  done
done
for act in relu gelu; do
  timeout 60 build/mnist_train --precision fp8 --activation $act --epochs 5 > /tmp/b/fp8-$act.txt 2>&1; echo "fp8 $act: $(grep '^done' /tmp/b/fp8-$act.txt)"
done
echo "verified at $SECONDS s"
save
for i in 1 2; do
  timeout 90 build/mnist_bench --data-dir data/mnist --network mid --precision fp32 --activation gelu --no-layers --tune-cache off --show-plans > /tmp/b/mid-fp32-gelu-$i.txt 2>&1
  echo "mid $i rc $?"; grep -E "^784-1024-1024-10 .*(fused|unfused|auto)" /tmp/b/mid-fp32-gelu-$i.txt | cut -c1-90; grep -E "whole step +fused -> unfused|fresh context" /tmp/b/mid-fp32-gelu-$i.txt | cut -c1-150
done
for i in 1 2 3; do
  timeout 60 build/mnist_train --epochs 5 --mode auto --tune-cache off --show-plans > /tmp/b/auto-$i.txt 2>&1
  echo "auto $i rc $? $(grep -E '^done' /tmp/b/auto-$i.txt | cut -c1-150)"; grep -E "fingerprint|whole step +fused -> unfused|fresh context" /tmp/b/auto-$i.txt | cut -c1-120
done
save
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/torchao-*.whl && export PYTHONPATH=/tmp/site
export TORCHINDUCTOR_CACHE_DIR=/tmp/tcache
for i in 1 2; do
  R=/tmp/b/fp8-$i; mkdir -p $R
  BENCH_JSON_DIR=$R TORCH_BENCH_FLAGS="--networks 4096-4096:4096 --precisions fp8 --variants compiled --activations relu" \
    MNIST_TUNE_CACHE_DIR=/tmp/tune-b$i timeout 150 scripts/bench_compare.sh build -- --no-layers --network big --precision fp8 --activation relu > $R/compare.log 2>&1
  echo "fp8 pair $i rc $? at $SECONDS s $(gpu)"; grep -E "^784-4096-4096-10 +4096 fp8 " $R/compare.log | cut -c1-170
  save
done
