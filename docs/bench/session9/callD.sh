#!/bin/bash
# Session 9, device call D (working tree: 39e9bcf + the loss kernel's last block + mnist_bench's rounds in the rows'
# order and its reverse, alternately): every row of 784-4096-4096-10 and of 784-100-10 in one process per binary,
# HEAD's build (rounds always in the rows' order) and this one, alternated; auto against min(fused, unfused).
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p /tmp/head && tar -xJf pack/head.tar.xz -C /tmp/head
mkdir -p $OUT/d
for n in big seed; do for b in head new; do
  [ $b = head ] && M=/tmp/head/build/mnist_bench || M=build/mnist_bench
  S=$SECONDS
  MNIST_TUNE_CACHE_DIR=/tmp/tc-$b-$n timeout 150 $M --network $n --no-layers --repeats 5 > $OUT/d/$b-$n.txt 2>&1 || echo "$b $n rc=$?"
  echo "$b $n: $((SECONDS - S)) s"
done; done
cd $OUT && tar -czf D.tgz d && rm -rf d
