#!/bin/bash
# Session 14, device call E: the build that ships after call D's suite failure (test_inference: its d_stats not
# zeroed; its device-wide memory count run beside other tests, now RUN_SERIAL) and the cold review's fixes (the
# cycle after gpu_context_settle; --epochs 0 refuses --context-cycle; test_step_tune's cycle case also reads the
# cache and tunes here). The GPU suite, test_step_tune, test_inference three more times; the default network's
# unfused and auto runs as call D ran fused: a first run, reading its cache without and with --context-cycle,
# --autotune off without and with it, two rounds.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p $OUT/e
(cd build && ctest -L gpu -E test_step_tune -j4 --output-on-failure > $OUT/e/ctest.txt 2>&1; echo "suite rc $?"; grep -E "tests passed|Failed|\*\*\*" $OUT/e/ctest.txt | head)
(cd build && ctest -R test_step_tune -V > $OUT/e/step_tune.txt 2>&1; echo "step_tune rc $?"; grep -E "tests passed|Checks|context cycle" $OUT/e/step_tune.txt | tail -6)
for r in 1 2 3; do (cd build && ctest -R test_inference --output-on-failure 2>&1 | grep -E "tests passed|Failed"); done
epochs() { awk '/^ +[0-9]+ +[0-9.]+ +[0-9.]+%/{printf "%s ", $6}' $1; }
summ() { echo "$1: $(epochs $2)| $(grep -o '[0-9.]* ms per epoch (median)' $2 | cut -d' ' -f1) $(grep -o 'test accuracy [0-9.]*%' $2) $(grep -o '[0-9.]* s wall clock' $2) $(grep -o 'fingerprint [0-9a-f]*, chosen in [0-9.]* ms' $2) $(grep -o 'context cycle: .*' $2)"; }
one() { local name=$1; shift; timeout 90 build/mnist_train "$@" --show-plans > $OUT/e/$name.txt 2>&1; summ $name $OUT/e/$name.txt; }
for m in unfused auto; do for r in 1 2; do
  d=/tmp/tcE-$m-$r; rm -rf $d
  one $m-tune-$r --mode $m --tune-cache-dir $d
  one $m-read-$r --mode $m --tune-cache-dir $d
  one $m-readcycle-$r --mode $m --tune-cache-dir $d --context-cycle
  one $m-off-$r --mode $m --autotune off --tune-cache off
  one $m-offcycle-$r --mode $m --autotune off --tune-cache off --context-cycle
done; done
cd $OUT && tar -czf E-logs.tgz e && rm -rf e
