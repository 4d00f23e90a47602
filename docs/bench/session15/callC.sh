#!/bin/bash
# Session 15, device call C: the build that ships (call A's cast, a candidate's time alone the least of three rounds).
# The GPU suite and test_step_tune; issue 27's targets. Every mnist_bench row (--no-layers), a
# process per network and binary, alternated: a72cb34's (its tuner: exact, each call timed alone; pack/old),
# this build with --autotune off and this build tuning (--tune-cache off); both of this build's with the
# context cycle (mnist_bench's default). Then the default network's three modes, 5 rounds (scripts/ab_tune.sh):
# --autotune off with --context-cycle (the fair pair: a first run's tuner makes and destroys a context) and a
# first run (--tune-cache off).
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p $OUT/c
gpu() { nvidia-smi --query-gpu=temperature.gpu,clocks.sm,clocks.mem,power.draw --format=csv,noheader; }
echo "gpu at start: $(gpu)"
save() { tar -czf $OUT/C-logs.tgz -C $OUT c; }
(cd build && timeout 150 ctest -L gpu -E test_step_tune -j4 --output-on-failure > $OUT/c/ctest.txt 2>&1; echo "suite rc $?"; grep -E "tests passed|Failed|\*\*\*" $OUT/c/ctest.txt | head)
(cd build && timeout 120 ctest -R test_step_tune -V > $OUT/c/step_tune.txt 2>&1; echo "step_tune rc $?"; grep -E "tests passed|F:" $OUT/c/step_tune.txt | cut -c1-300 | tail -2)
save
for net in seed mid big; do
  for b in old off new; do
    s=$SECONDS
    case $b in
      old) timeout 110 pack/old/mnist_bench --network $net --no-layers --json $OUT/c/rows-old-$net.json > $OUT/c/rows-old-$net.txt 2>&1 ;;
      off) timeout 110 build/mnist_bench --network $net --no-layers --autotune off --json $OUT/c/rows-off-$net.json > $OUT/c/rows-off-$net.txt 2>&1 ;;
      new) timeout 110 build/mnist_bench --network $net --no-layers --tune-cache off --show-plans --json $OUT/c/rows-new-$net.json > $OUT/c/rows-new-$net.txt 2>&1 ;;
    esac
    echo "$b $net rc $? $((SECONDS - s)) s"
  done
  save
done
B=build/mnist_train
timeout 100 scripts/ab_tune.sh --rounds 5 --log $OUT/c/ab -- off="$B --autotune off --context-cycle" first="$B --tune-cache off" \
  off-u="$B --mode unfused --autotune off --context-cycle" first-u="$B --mode unfused --tune-cache off" \
  off-a="$B --mode auto --autotune off" first-a="$B --mode auto --tune-cache off" > $OUT/c/ab.txt 2>&1
echo "ab rc $?"; tail -8 $OUT/c/ab.txt
python3 docs/bench/session15/rows3.py $OUT/c | tail -25
save; rm -rf $OUT/c
