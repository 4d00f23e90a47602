#!/bin/bash
# Session 29, device call B (the working tree: the whole search ends with off's set where it moves no algorithm;
# mnist_bench --against-off allowed under --autotune off, off against itself): the GPU suite, test_step_tune -V,
# the default network's first runs under exact and off (fused, auto; ab_tune, 5 rounds), an auto run's
# --show-plans, the 784-1024-1024-10 TF32 rows under --against-off, twice tuned (exact) and twice off against
# itself, and the SASS of session 29's warp-tile cast (probe_new) where cuobjdump is on the machine.
. docs/bench/session27/common.sh
call_start B
tar -xJf pack/build.tar.xz
tar -xJf pack/extra.tar.xz
S=$SECONDS
(cd build && timeout 230 ctest -L gpu -E "test_step_tune" -j4 --output-on-failure) > /tmp/b/suite.txt 2>&1
echo "suite in $((SECONDS - S)) s:"
grep -E "tests passed|\*\*\*|Assert|\.c:[0-9]+:|Failed" /tmp/b/suite.txt | cut -c1-180 | tail -8
(cd build && timeout 120 ctest -R test_step_tune -V) > /tmp/b/step-tune.txt 2>&1
echo "test_step_tune rc $?: $(grep 'tests passed' /tmp/b/step-tune.txt)"; grep -E "ways alone|no algorithm moved" /tmp/b/step-tune.txt | head -4
S=$SECONDS
T="build/mnist_train --data-dir data/mnist --epochs 5 --tune-cache off"
timeout 120 scripts/ab_tune.sh --rounds 5 --log /tmp/b/ab -- \
  "off-fused=$T --autotune off --mode fused" "exact-fused=$T --mode fused" \
  "off-auto=$T --autotune off --mode auto" "exact-auto=$T --mode auto" > /tmp/b/ab.txt 2>&1
echo "ab_tune: rc $? in $((SECONDS - S)) s"; tail -8 /tmp/b/ab.txt
timeout 30 $T --mode auto --show-plans > /tmp/b/auto-plans.txt 2>&1
echo "auto --show-plans rc $?: $(grep -c 'no algorithm moved' /tmp/b/auto-plans.txt) notes; $(tail -1 /tmp/b/auto-plans.txt)"
for run in exact-1 off-1 exact-2 off-2; do
  S=$SECONDS
  timeout 100 build/mnist_bench --data-dir data/mnist --no-layers --show-plans --tune-cache off --against-off \
    --network mid --precision tf32 --autotune ${run%-*} --json /tmp/b/tf32-$run.json > /tmp/b/tf32-$run.txt 2>&1
  echo "bench mid tf32 $run: rc $? in $((SECONDS - S)) s"
  grep -E "^784-[0-9-]+ +[0-9]+ " /tmp/b/tf32-$run.txt | sed -E 's/ +/ /g' | awk '{print $3, $4}' > /tmp/b/h
  grep -E "^784-[0-9-]+ +[0-9]+ " /tmp/b/tf32-$run.txt | grep -oE "[0-9.]+x off's time.*" | paste -d' ' /tmp/b/h - | cut -c1-120
  grep -E "no algorithm moved|twin's set" /tmp/b/tf32-$run.txt | sort | uniq -c | head -4
done
if command -v cuobjdump > /dev/null; then
  cuobjdump -sass -arch sm_90 pack/probe_new > /tmp/b/sass-probe-new.txt 2>&1
  wc -l /tmp/b/sass-*.txt
else
  echo "no cuobjdump: $(ls /usr/local/cuda*/bin 2>/dev/null | head -3)"
fi
echo "end at $SECONDS s"
