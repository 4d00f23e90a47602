#!/bin/bash
# Session 9, device call H (ca38dae): the README table's run 3 (pack/call9G.sh 3), then test_step_tune twice more:
# call F saw it fail once (choices_past_the_first_are_adopted: 784-100-10 FP32, the set chosen apart against the set
# chosen in the training's context).
set -u
bash pack/call9G.sh 3
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
for k in 1 2; do
  (cd build && timeout 90 ctest -R "test_step_tune" --output-on-failure) > $OUT/H-step_tune-$k.txt 2>&1
  grep -E "tests passed|Assert" $OUT/H-step_tune-$k.txt | cut -c1-200
done
