#!/bin/bash
# Session 7, device call K (call J's build): the 784-1024-1024-10 rows, where single processes of call J put 9
# rows more than 1 % behind --autotune off (call I: a row with every call at cuBLASLt's first candidate, as
# off runs it, moved by 4 % between processes): two more processes each of tuned (--tune-cache off) and
# --autotune off, alternated, so each row has three processes per setting with call J's.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p $OUT/k
for r in 2 3; do
  timeout 110 build/mnist_bench --network mid --no-layers --tune-cache off --show-plans --json $OUT/k/rows-new-mid-$r.json > $OUT/k/rows-new-mid-$r.txt 2>&1; echo "new mid $r rc $?"
  timeout 100 build/mnist_bench --network mid --no-layers --autotune off --json $OUT/k/rows-off-mid-$r.json > $OUT/k/rows-off-mid-$r.txt 2>&1; echo "off mid $r rc $?"
done
cd $OUT && tar -czf K-logs.tgz k && rm -rf k
