#!/bin/bash
# Session 31, device call C: what ships (02468d5): README's run as the call's first process and
# test_readme_run, the 784-100-10 fp8 rows of both builds three times each (old, new, ...: call
# B had its GELU rows at 1.010 and 1.012), then README's table (scripts/bench_compare.sh
# --no-layers --show-plans).
. docs/bench/session27/common.sh
. docs/bench/session30/common.sh
call_start C
tar -xJf pack/build.tar.xz
readme_run /tmp/c
cp /tmp/c/readme_run.txt $OUT/C-readme_run.txt
mkdir -p pack/oldx && tar -xJf pack/build_old.tar.xz -C pack/oldx
fp8_rows /tmp/c seed old new old new old new
python3 docs/bench/session30/rows_ratio.py /tmp/c/bench-fp8-old-*.txt -- /tmp/c/bench-fp8-new-*.txt
readme_table /tmp/c/compare 420 /tmp/c/tune
cp /tmp/c/compare/compare.log $OUT/C-compare.txt
echo "end at $SECONDS s"
