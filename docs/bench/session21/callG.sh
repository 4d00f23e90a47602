#!/bin/bash
# Session 21, device call G (65bfcf4, the build that ships: no cycle under --steps 0, test_step_tune's cycle case
# with a --no-context-cycle run, comments): README's run as the call's first process, test_readme_run; the GPU
# suite and test_step_tune; --steps 0 makes no cycle; the fp8 default run: first, cached, cached without the cycle.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p /tmp/g
save() { tar -czf $OUT/G-logs.tgz -C /tmp g; }
echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
build/mnist_train --epochs 5 > /tmp/g/readme_run.txt 2>&1; tail -1 /tmp/g/readme_run.txt
(cd build && timeout 60 ctest -R "test_readme_run" --output-on-failure) > /tmp/g/readme_test.txt 2>&1; grep -E "tests passed" /tmp/g/readme_test.txt
build/mnist_train --epochs 1 --steps 0 --show-plans > /tmp/g/steps0.txt 2>&1; echo "--steps 0: rc $?, cycle lines $(grep -c 'context cycle: a CUDA context made' /tmp/g/steps0.txt)"
for n in first cached nocycle; do
  f=""; [ $n = nocycle ] && f=--no-context-cycle
  build/mnist_train --precision fp8 --epochs 5 $f > /tmp/g/fp8-$n.txt 2>&1; echo "fp8 $n: $(grep '^done' /tmp/g/fp8-$n.txt)"
done
(cd build && timeout 200 ctest -L gpu -E "test_step_tune|test_readme_run" -j4 --output-on-failure > /tmp/g/ctest.txt 2>&1; echo "suite rc $? at $SECONDS s"; grep -E "tests passed|Failed|\*\*\*" /tmp/g/ctest.txt | head)
(cd build && timeout 150 ctest -R test_step_tune -V > /tmp/g/step_tune.txt 2>&1; echo "step_tune rc $? at $SECONDS s"; grep -E "tests passed|held|Checks" /tmp/g/step_tune.txt | cut -c1-170)
save
