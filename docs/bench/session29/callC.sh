#!/bin/bash
# Session 29, device call C (the tree that lands, as call B's build): README's run as the call's first process
# and test_readme_run; README's table: scripts/bench_compare.sh --no-layers --show-plans once (ReLU rows for
# PyTorch; torchao 0.18.0 from .whl/ for fp8); then --autotune off against itself (mnist_bench --against-off
# --autotune off): the 784-1024-1024-10 rows in every precision once, and its TF32 rows in two more processes.
source docs/bench/session27/common.sh
call_start C
tar -xJf pack/build.tar.xz
readme_run /tmp/c # common.sh (moved there afterwards)
readme_table /tmp/c/compare 390 /tmp/tune-c
floor() { # floor NAME ARGS...: off against itself
  local name=$1 start=$SECONDS left=$((575 - SECONDS))
  shift
  [ $left -gt 25 ] || { echo "floor $name: no time left"; return; }
  timeout $left build/mnist_bench --data-dir data/mnist --no-layers --show-plans --tune-cache off --against-off \
    --autotune off --network mid --json /tmp/c/floor-$name.json "$@" > /tmp/c/floor-$name.txt 2>&1
  echo "floor $name: rc $? in $((SECONDS - start)) s"
  grep -E "^784-[0-9-]+ +[0-9]+ " /tmp/c/floor-$name.txt | sed -E 's/ +/ /g' | awk '{print $3, $4}' > /tmp/c/h
  grep -E "^784-[0-9-]+ +[0-9]+ " /tmp/c/floor-$name.txt | grep -oE "[0-9.]+x off's time.*" | paste -d' ' /tmp/c/h - | cut -c1-110
}
floor mid-all
floor tf32-1 --precision tf32
floor tf32-2 --precision tf32
echo "end at $SECONDS s"
