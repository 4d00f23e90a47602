#!/bin/bash
# Session 3, device call O (diagnostic): the seed network's choices apart, from the cache, and here.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
B="build/mnist_train --hidden 100 --batch 256 --epochs 1 --show-plans"
$B --tune-cache-dir /tmp/tcs 2>&1 | sed -n '/step tuner:/,/evidence/p' | cut -c1-150
cat /tmp/tcs/*.txt | cut -c1-140
$B --tune-cache-dir /tmp/tcs 2>&1 | sed -n '/cuBLASLt plans/,/evidence/p' | grep -v "first only" | cut -c1-150
$B --tune-cache off --tune-here 2>&1 | sed -n '/step tuner:/,/evidence/p' | cut -c1-150
$B --tune-cache off --tune-here 2>&1 | sed -n '/step tuner:/,/evidence/p' | cut -c1-150
