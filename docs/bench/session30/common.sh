# common.sh: what session 30's device calls share (sourced after sessions 27's and 29's): the
# start with both builds unpacked, the GPU suite, the probe's outputs compared at four shapes,
# ncu of the probe's builds, the default fp8 runs, and the big fp8 rows of both builds. Calls A-D
# ran these inline; they moved here afterwards, the commands unchanged.

# start30 X: call X's logs (call_start), the working tree's build and HEAD's in pack/oldx.
start30() {
  call_start $1
  tar -xJf pack/build.tar.xz
  mkdir -p pack/oldx && tar -xJf pack/build_old.tar.xz -C pack/oldx
}

# gpu_suite DIR: the GPU tests, then racecheck on test_fp8_cast.
gpu_suite() {
  (cd build && timeout 200 ctest -L gpu -j4 --output-on-failure) > $1/ctest-gpu.txt 2>&1
  echo "gpu suite rc $?: $(grep 'tests passed' $1/ctest-gpu.txt)"; grep -E "\*\*\*|Failed|failed" $1/ctest-gpu.txt | head
  racecheck_cast $1
  echo "at $SECONDS s"
}

# cast_outputs DIR: the probe's casts of probe_new and probe_old compared at four shapes.
cast_outputs() {
  for shape in "4096 4096" "1024 256" "1024 128" "4096 1024"; do probe_compare29 $1 $shape; done 2>&1 | grep -v "^dump"
}

# cast_ncu DIR VARIANT...: ncu of each probe build, two rounds, summarised.
cast_ncu() {
  local dir=$1
  shift
  probe_ncu $dir $NCU_METRICS_WIDE "$@"
  python3 docs/bench/session27/ncu_summary.py $dir | grep -v stream
  echo "at $SECONDS s"
}

# fp8_runs DIR: the default fp8 runs of the new build, ReLU and GELU.
fp8_runs() {
  local act
  for act in relu gelu; do
    timeout 60 build/mnist_train --data-dir data/mnist --epochs 5 --precision fp8 --activation $act > $1/train-fp8-$act-new.txt 2>&1
    echo "train fp8 $act new rc $?: $(grep -E '^done' $1/train-fp8-$act-new.txt | cut -c1-110) $(tail -1 $1/train-fp8-$act-new.txt | cut -c1-90)"
  done
}

# fp8_rows DIR NETWORK B...: mnist_bench's fp8 rows (NETWORK, or all three for "all") of each
# build B (old or new) in turn, into DIR/bench-fp8-B-SECONDS.txt.
fp8_rows() {
  local dir=$1 net=$2 b bin
  shift 2
  for b in "$@"; do
    bin=build; [ $b = old ] && bin=pack/oldx/build
    if [ $net = all ]; then
      timeout 150 $bin/mnist_bench --data-dir data/mnist --precision fp8 --no-layers --repeats 5 > $dir/bench-fp8-$b-$SECONDS.txt 2>&1
    else
      timeout 150 $bin/mnist_bench --data-dir data/mnist --network $net --precision fp8 --no-layers --repeats 5 > $dir/bench-fp8-$b-$SECONDS.txt 2>&1
    fi
    echo "bench fp8 $net $b rc $? at $SECONDS s"
  done
}
