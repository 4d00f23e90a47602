#!/bin/bash
# Session 30, device call F: what ships, with test_step_tune's stop case held to the search's own
# evidence (it failed in call E where an algorithm moved): README's run as the call's first
# process and test_readme_run, test_step_tune, the 784-1024-1024-10 fp8 rows of both builds again
# (old, new, old, new: call E had two of them over 1.01x once), then README's table
# (scripts/bench_compare.sh --no-layers --show-plans).
. docs/bench/session27/common.sh
. docs/bench/session30/common.sh
call_start F
tar -xJf pack/build.tar.xz
readme_run /tmp/f
cp /tmp/f/readme_run.txt $OUT/F-readme_run.txt
(cd build && timeout 120 ctest -R test_step_tune --output-on-failure) > /tmp/f/step-tune.txt 2>&1
echo "test_step_tune rc $?: $(grep 'tests passed' /tmp/f/step-tune.txt)"; grep -E "moved|stop|Failed" /tmp/f/step-tune.txt | head -3
mkdir -p pack/oldx && tar -xJf pack/build_old.tar.xz -C pack/oldx
fp8_rows /tmp/f mid old new old new
python3 docs/bench/session30/rows_ratio.py /tmp/f/bench-fp8-old-*.txt -- /tmp/f/bench-fp8-new-*.txt
readme_table /tmp/f/compare 400 /tmp/f/tune
cp /tmp/f/compare/compare.log $OUT/F-compare.txt
echo "end at $SECONDS s"
