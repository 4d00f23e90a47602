#!/bin/bash
# Session 29, device call A: the masked cast as a warp's tile in registers (working tree) against
# HEAD e366fe9's (pack/extra.tar.xz: probe_old and pack/old's mnist_bench and mnist_train from e366fe9,
# probe_new from the working tree). The GPU suite and test_step_tune on the new build (HEAD's
# test_step_tune assertion of f0ad876 never ran on a GPU), memcheck and racecheck on test_fp8_cast, the
# probe's outputs compared, events, ncu, the default fp8 runs and the big fp8 bench rows of both builds.
. docs/bench/session27/common.sh
. docs/bench/session29/common.sh
call_start A
tar -xJf pack/build.tar.xz
tar -xJf pack/extra.tar.xz
(cd build && timeout 200 ctest -L gpu -E test_step_tune -j4 --output-on-failure) > /tmp/a/ctest-gpu.txt 2>&1
echo "gpu suite rc $?: $(grep 'tests passed' /tmp/a/ctest-gpu.txt)"; grep -E "\*\*\*|Failed" /tmp/a/ctest-gpu.txt | head
(cd build && timeout 120 ctest -R test_step_tune -V) > /tmp/a/ctest-step-tune.txt 2>&1
echo "test_step_tune rc $?: $(grep 'tests passed' /tmp/a/ctest-step-tune.txt)"; grep -iE "alone" /tmp/a/ctest-step-tune.txt | head -4
CK_FORK=no timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 build/tests/test_fp8_cast > /tmp/a/memcheck.txt 2>&1
echo "memcheck test_fp8_cast rc $?: $(tail -2 /tmp/a/memcheck.txt | tr '\n' ' ')"
racecheck_cast /tmp/a
echo "at $SECONDS s"
for shape in "4096 4096" "1024 256" "1024 128" "4096 1024"; do probe_compare29 /tmp/a $shape; done
for shape in "4096 4096" "1024 256"; do probe_events29 /tmp/a $shape; done
echo "at $SECONDS s"
probe_ncu /tmp/a $NCU_METRICS_WIDE old new
python3 docs/bench/session27/ncu_summary.py /tmp/a
echo "at $SECONDS s"
for b in new old; do
  bin=build; [ $b = old ] && bin=pack/old
  for act in relu gelu; do
    timeout 60 $bin/mnist_train --data-dir data/mnist --epochs 5 --precision fp8 --activation $act > /tmp/a/train-fp8-$act-$b.txt 2>&1
    echo "train fp8 $act $b rc $?: $(tail -1 /tmp/a/train-fp8-$act-$b.txt)"
  done
done
for b in old new old new; do
  bin=build; [ $b = old ] && bin=pack/old
  timeout 150 $bin/mnist_bench --data-dir data/mnist --network big --precision fp8 --no-layers --repeats 5 > /tmp/a/bench-big-$b-$SECONDS.txt 2>&1
  echo "bench big fp8 $b rc $?"; grep -E "fused|unfused|auto" /tmp/a/bench-big-$b-*.txt | tail -6
done
echo "end at $SECONDS s"
