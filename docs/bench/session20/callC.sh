#!/bin/bash
# Session 20, device call C (4d3bf9d, the build that ships): the GPU suite and test_step_tune; README's run and
# test_readme_run; tune_auto_start seen at work: 784-100-10 FP16 GELU (a narrow unfused win in session 15) and the
# big fp8 ReLU row with --show-plans and no cache; every fp8 row of a72cb34 (pack/old) and of this build, a process
# per network, alternated (issue 28: each <= 1.01x its a72cb34 median).
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p /tmp/c
save() { tar -czf $OUT/C-logs.tgz -C /tmp c; }
gpu() { nvidia-smi --query-gpu=temperature.gpu,clocks.sm,clocks.mem,power.draw --format=csv,noheader; }
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader) at start: $(gpu)"
build/mnist_train --epochs 5 > /tmp/c/readme_run.txt 2>&1; tail -1 /tmp/c/readme_run.txt
(cd build && timeout 60 ctest -R "test_readme_run" --output-on-failure) > /tmp/c/readme_test.txt 2>&1; grep -E "tests passed" /tmp/c/readme_test.txt
(cd build && timeout 200 ctest -L gpu -E "test_step_tune|test_readme_run" -j4 --output-on-failure > /tmp/c/ctest.txt 2>&1; echo "suite rc $? at $SECONDS s"; grep -E "tests passed|Failed|\*\*\*" /tmp/c/ctest.txt | head)
(cd build && timeout 120 ctest -R test_step_tune --output-on-failure > /tmp/c/step_tune.txt 2>&1; echo "step_tune rc $?"; grep -E "tests passed|held|fresh context" /tmp/c/step_tune.txt | tail -3 | cut -c1-160)
save
for i in 1 2; do
  timeout 60 build/mnist_bench --data-dir data/mnist --network seed --precision fp16 --activation gelu --no-layers --tune-cache off --show-plans > /tmp/c/seed-fp16-gelu-$i.txt 2>&1
  echo "seed fp16 gelu $i rc $?"; grep -E "^784-100-10 .*(fused|unfused|auto)" /tmp/c/seed-fp16-gelu-$i.txt | cut -c1-90
  grep -E "whole step +fused -> unfused|unfused won by under|fresh context" /tmp/c/seed-fp16-gelu-$i.txt | cut -c1-170
done
timeout 120 build/mnist_bench --data-dir data/mnist --network big --precision fp8 --activation relu --no-layers --tune-cache off --show-plans > /tmp/c/big-fp8-plans.txt 2>&1
echo "big fp8 rc $?"; grep -E "^784-4096-4096-10 .*(fused|unfused|auto)" /tmp/c/big-fp8-plans.txt | cut -c1-90
grep -E "whole step +fused -> unfused|unfused won by under|fresh context" /tmp/c/big-fp8-plans.txt | cut -c1-170
echo "at $SECONDS s"
save
for net in big mid seed; do
  for b in old new; do
    bin=build/mnist_bench; [ $b = old ] && bin=pack/old/mnist_bench
    MNIST_TUNE_CACHE_DIR=/tmp/tcC-$b timeout 90 $bin --network $net --precision fp8 --no-layers --json /tmp/c/fp8-$b-$net.json > /tmp/c/fp8-$b-$net.txt 2>&1; echo "$b $net rc $? at $SECONDS s $(gpu)"
  done
  save
done
python3 docs/bench/session16/fp8_rows.py /tmp/c > /tmp/c/fp8_rows.txt 2>&1; tail -12 /tmp/c/fp8_rows.txt
save
