#!/bin/bash
# Session 4, device call W (35429f9's build): 784-1024-1024-10 BF16 batch 256 --mode auto in mnist_train, three
# first runs with --show-plans (fingerprint, ways, ms per epoch), and three unfused, alternated.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
B="build/mnist_train --hidden 1024,1024 --batch 256 --precision bf16 --tune-cache off"
for r in 1 2 3; do
  $B --mode auto --show-plans > $OUT/auto_$r.txt 2>&1; grep -E "fingerprint|done:" $OUT/auto_$r.txt | cut -c1-110
  $B --mode unfused > $OUT/unfused_$r.txt 2>&1; grep -E "done:" $OUT/unfused_$r.txt | cut -c1-110
done
cd $OUT && tar -czf logsW.tgz auto_* unfused_* && rm -f auto_* unfused_*
