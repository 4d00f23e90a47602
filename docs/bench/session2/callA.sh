#!/bin/bash
# Session 2, device call A: HEAD's whole GPU suite; --quiet test against the reverted binary; README's run;
# fingerprints without the cache (evidence); the default run off / first / cached / check-only; ncu of off vs check-only.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader | tee $OUT/gpu.txt
B=build/mnist_train
$B --epochs 5 > $OUT/readme_run.txt 2>&1; cat $OUT/readme_run.txt | tail -4
(cd build && timeout 200 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > $OUT/ctest.txt 2>&1
(cd build && timeout 60 ctest -R "test_step_tune" --output-on-failure) >> $OUT/ctest.txt 2>&1
grep -E "tests passed|\*\*\*|Assert|fingerprint|behind" $OUT/ctest.txt | cut -c1-220 | tail -16
cp $B /tmp/mnist_train.keep && cp pack/mnist_train_quiet_rev $B
timeout 90 build/tests/test_train_e2e > $OUT/quiet_rev.txt 2>&1; echo "reverted --quiet fix: rc=$?"; grep -E "Checks|quiet" $OUT/quiet_rev.txt | cut -c1-200 | head -4
cp /tmp/mnist_train.keep $B
for i in 1 2 3; do timeout 30 $B --epochs 1 --show-plans --tune-cache off > $OUT/plans$i.txt 2>&1; grep fingerprint $OUT/plans$i.txt | cut -c1-120; done
timeout 30 $B --epochs 1 --tune-cache-dir /tmp/tcab > /dev/null 2>&1
timeout 150 scripts/ab_tune.sh --rounds 3 --log $OUT/ab -- off="$B --autotune off" first="$B --tune-cache off" \
  cached="$B --tune-cache-dir /tmp/tcab" chk="$B --tune-cache off --tune-budget 1" fastchk="$B --autotune fast --tune-cache off --tune-budget 1" \
  off-a="$B --mode auto --autotune off" first-a="$B --mode auto --tune-cache off" 2>&1 | tee $OUT/ab.txt
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu | head -1)
for v in "off --autotune off" "chk --tune-cache off --tune-budget 1"; do set -- $v; n=$1; shift
  timeout 100 $NCU --clock-control none --cache-control none --metrics gpu__time_duration.sum --launch-skip 4000 --launch-count 240 --csv $B --epochs 1 "$@" > $OUT/ncu-$n.csv 2>$OUT/ncu-$n.err; echo "ncu $n rc=$? lines $(wc -l < $OUT/ncu-$n.csv)"
done
cd $OUT && tar -czf logs.tgz ab ctest.txt plans*.txt quiet_rev.txt ncu-* && rm -rf ab plans*.txt ncu-*
