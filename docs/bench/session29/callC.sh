#!/bin/bash
# Session 29, device call C (the tree that lands, as call B's build): README's run as the call's first process
# and test_readme_run; README's table: scripts/bench_compare.sh --no-layers --show-plans once (ReLU rows for
# PyTorch; torchao 0.18.0 from .whl/ for fp8); then --autotune off against itself (mnist_bench --against-off
# --autotune off): the 784-1024-1024-10 rows in every precision once, and its TF32 rows in two more processes.
source docs/bench/session27/common.sh
call_start C
tar -xJf pack/build.tar.xz
rm -rf $HOME/.cache/mnist-epilogs
timeout 30 build/mnist_train --data-dir data/mnist --epochs 5 > /tmp/c/readme_run.txt 2>&1; echo "readme run rc $?"
grep "^done" /tmp/c/readme_run.txt
(cd build && timeout 60 ctest -R "test_readme_run" --output-on-failure) > /tmp/c/suite.txt 2>&1
echo "test_readme_run: $(grep 'tests passed' /tmp/c/suite.txt)"
readme_table() {
  local dir=$1 start=$SECONDS
  mkdir -p $dir
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/torchao-*.whl &&
    export PYTHONPATH=/tmp/site TORCHINDUCTOR_CACHE_DIR=/tmp/tcache
  BENCH_JSON_DIR=$dir TORCH_BENCH_FLAGS="--activations relu" MNIST_TUNE_CACHE_DIR=/tmp/tune-c \
    timeout 390 scripts/bench_compare.sh build --no-layers --show-plans > $dir/compare.log 2>&1
  echo "bench_compare: rc $? after $((SECONDS - start)) s"
  sed -n '/^ours (CUDA graphs)/,$p' $dir/compare.log | head -40 | cut -c1-175
}
readme_table /tmp/c/compare
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
