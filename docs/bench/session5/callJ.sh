#!/bin/bash
# Session 5, device call J (3fb18e8, as call I): test_step_tune three more times (call I saw its
# auto_is_never_behind fail once: 784-100-10 FP32 auto 10.420 ms against unfused 10.390, spread 0.020).
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
for i in 1 2 3; do (cd build && timeout 60 ctest -R "test_step_tune" --output-on-failure) > $OUT/ctest$i.txt 2>&1
  grep -E "tests passed|behind" $OUT/ctest$i.txt | cut -c1-160; done
cat $OUT/ctest*.txt > $OUT/ctest.txt && rm -f $OUT/ctest[123].txt
