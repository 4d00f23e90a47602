#!/bin/bash
# Session 3, device call M (diagnostic): which plan the first run lists.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
build/mnist_train --epochs 1 --show-plans --tune-cache off 2>&1 | sed -n '/cuBLASLt plans/,/step tuner/p' | cut -c1-170
build/mnist_train --epochs 1 --show-plans --tune-cache off --hidden 100 --batch 256 2>&1 | sed -n '/cuBLASLt plans/,$p' | cut -c1-170 | head -40
