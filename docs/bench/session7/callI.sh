#!/bin/bash
# Session 7, device call I (e9e7090, the build that ships; a72cb34's binaries in pack/base.tar.xz):
# the whole GPU suite on the final build; README's run; the default run off / first / cached / a72cb34
# per mode, 5 rounds; every mnist_bench row (--no-layers) per network in a process of its own, three
# binaries alternated: a72cb34 (its exact per-call tuner), e9e7090 --autotune off, e9e7090 first run
# (--tune-cache off), round 1 (call J: round 2).
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
tar -xJf pack/base.tar.xz -C /tmp
B=build/mnist_train; A=/tmp/base/mnist_train
mkdir -p $OUT/i
(cd build && timeout 170 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > $OUT/i/ctest.txt 2>&1
(cd build && timeout 90 ctest -R "test_step_tune" --output-on-failure) >> $OUT/i/ctest.txt 2>&1
grep -E "tests passed|\*\*\*|Assert|\.c:[0-9]+:|Failed" $OUT/i/ctest.txt | cut -c1-180 | tail -8
$B --epochs 5 > $OUT/readme_run.txt 2>&1; tail -1 $OUT/readme_run.txt
for m in fused unfused auto; do timeout 20 $B --mode $m --epochs 1 --tune-cache-dir /tmp/tc-$m > /dev/null 2>&1; done
timeout 150 scripts/ab_tune.sh --rounds 5 --log $OUT/i/ab -- off="$B --autotune off" first="$B --tune-cache off" cached="$B --tune-cache-dir /tmp/tc-fused" a72="$A" \
  off-u="$B --mode unfused --autotune off" first-u="$B --mode unfused --tune-cache off" cached-u="$B --mode unfused --tune-cache-dir /tmp/tc-unfused" a72-u="$A --mode unfused" \
  off-a="$B --mode auto --autotune off" first-a="$B --mode auto --tune-cache off" cached-a="$B --mode auto --tune-cache-dir /tmp/tc-auto" a72-a="$A --mode auto" > $OUT/ab.txt 2>&1
tail -14 $OUT/ab.txt
r=1
for net in seed mid big; do
  timeout 100 /tmp/base/mnist_bench --network $net --no-layers --json $OUT/i/rows-a72-$net-$r.json > $OUT/i/rows-a72-$net-$r.txt 2>&1; echo "a72 $net rc $?"
  timeout 100 build/mnist_bench --network $net --no-layers --autotune off --json $OUT/i/rows-off-$net-$r.json > $OUT/i/rows-off-$net-$r.txt 2>&1; echo "off $net rc $?"
  timeout 100 build/mnist_bench --network $net --no-layers --tune-cache off --json $OUT/i/rows-new-$net-$r.json > $OUT/i/rows-new-$net-$r.txt 2>&1; echo "new $net rc $?"
done
cd $OUT && tar -czf I-logs.tgz i && rm -rf i
