#!/bin/bash
# Session 7, device call L (the commit after 380932d: a way search also tries its near winners together):
# the whole GPU suite; the default run's auto against unfused (first runs) and --autotune off, 3 rounds;
# the 784-1024-1024-10 rows, tuned (--tune-cache off, --show-plans) and --autotune off alternated, two
# processes each (off's auto rows run the way search too), and the 784-100-10 rows once each.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
B=build/mnist_train
mkdir -p $OUT/l
(cd build && timeout 170 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > $OUT/l/ctest.txt 2>&1
(cd build && timeout 150 ctest -R "test_step_tune" --output-on-failure -V) >> $OUT/l/ctest.txt 2>&1
grep -E "tests passed|\*\*\*|Assert|\.c:[0-9]+:|Failed|ways alone" $OUT/l/ctest.txt | cut -c1-180 | tail -8
timeout 60 scripts/ab_tune.sh --rounds 3 --log $OUT/l/ab -- off-a="$B --mode auto --autotune off" first-a="$B --mode auto --tune-cache off" first-u="$B --mode unfused --tune-cache off" > $OUT/ab.txt 2>&1
tail -4 $OUT/ab.txt
for r in 1 2; do
  timeout 110 build/mnist_bench --network mid --no-layers --tune-cache off --show-plans --json $OUT/l/rows-new-mid-$r.json > $OUT/l/rows-new-mid-$r.txt 2>&1; echo "new mid $r rc $?"
  timeout 100 build/mnist_bench --network mid --no-layers --autotune off --show-plans --json $OUT/l/rows-off-mid-$r.json > $OUT/l/rows-off-mid-$r.txt 2>&1; echo "off mid $r rc $?"
done
timeout 100 build/mnist_bench --network seed --no-layers --tune-cache off --show-plans --json $OUT/l/rows-new-seed-1.json > $OUT/l/rows-new-seed-1.txt 2>&1; echo "new seed rc $?"
timeout 100 build/mnist_bench --network seed --no-layers --autotune off --show-plans --json $OUT/l/rows-off-seed-1.json > $OUT/l/rows-off-seed-1.txt 2>&1; echo "off seed rc $?"
cd $OUT && tar -czf L-logs.tgz l && rm -rf l
