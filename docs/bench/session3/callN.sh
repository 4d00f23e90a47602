#!/bin/bash
# Session 3, device call N (diagnostic): 784-1024-1024-10 tf32 batch 256 fused, tuned against off; test_step_tune with the parser fixed.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
B="build/mnist_train --hidden 1024,1024 --batch 256 --precision tf32 --epochs 3"
for i in 1 2; do
$B --autotune off 2>&1 | grep "^done" | cut -c1-120
$B --tune-cache off --show-plans 2>&1 | sed -n '/^done/p;/step tuner:/,$p' | cut -c1-150
$B --tune-cache off --tune-here --show-plans 2>&1 | sed -n '/^done/p;/step tuner:/,/evidence/p' | cut -c1-150
done
(cd build && timeout 90 ctest -R "test_step_tune" --output-on-failure) 2>&1 | grep -E "tests passed|Assert|\.c:[0-9]+:" | cut -c1-200
