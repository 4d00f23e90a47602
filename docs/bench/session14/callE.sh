#!/bin/bash
# Session 14, device call E: the build that ships after call D's suite failure (test_inference: its d_stats not
# zeroed; its device-wide memory count run beside other tests, now RUN_SERIAL) and the cold review's fixes (the
# cycle after gpu_context_settle; --epochs 0 refuses --context-cycle; test_step_tune's cycle case also reads the
# cache and tunes here). The GPU suite, test_step_tune, test_inference three more times.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}
tar -xJf pack/build.tar.xz
mkdir -p $OUT/e
(cd build && ctest -L gpu -E test_step_tune -j4 --output-on-failure > $OUT/e/ctest.txt 2>&1; echo "suite rc $?"; grep -E "tests passed|Failed|\*\*\*" $OUT/e/ctest.txt | head)
(cd build && ctest -R test_step_tune -V > $OUT/e/step_tune.txt 2>&1; echo "step_tune rc $?"; grep -E "tests passed|Checks|context cycle" $OUT/e/step_tune.txt | tail -6)
for r in 1 2 3; do (cd build && ctest -R test_inference --output-on-failure 2>&1 | grep -E "tests passed|Failed"); done
cd $OUT && tar -czf E-logs.tgz e && rm -rf e
