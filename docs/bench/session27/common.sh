# common.sh: what session 27's device calls share, sourced by each: the
# start (logs, libraries, the GPU named), and for the probe's calls (A, C-F)
# the outputs of two builds compared and the timed rounds by events, then
# under ncu, each build of the probe (pack/probe_VARIANT) alternated, two
# rounds; and (sessions 28 and 29) README's run and table. The calls ran
# these inline; they moved here afterwards, the commands unchanged.
set -u
export LD_LIBRARY_PATH=$PWD/pack/lib:${LD_LIBRARY_PATH:-}

# call_start X: logs in /tmp/x, packed into $OUT/X-logs.tgz at exit.
call_start() {
  local dir=$(echo $1 | tr A-Z a-z)
  mkdir -p /tmp/$dir
  trap "tar -czf $OUT/$1-logs.tgz -C /tmp $dir" EXIT
  echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
}

# probe_compare DIR BASE VARIANT...: each build's casts dumped, each
# VARIANT's outputs compared with BASE's byte for byte, the dumps removed.
probe_compare() {
  local dir=$1 base=$2 v c
  shift 2
  for v in $base "$@"; do
    timeout 60 pack/probe_$v 3 $dir/dump-$v > $dir/dump-$v.txt 2>&1; echo "dump $v rc $?"
  done
  for v in "$@"; do
    for c in relu_l1 gelu_l1 relu_l2; do
      cmp $dir/dump-$base-$c.bin $dir/dump-$v-$c.bin && echo "$v $c: outputs byte for byte SAME as $base"
    done
  done
  rm -f $dir/*.bin
}

# ncu's metrics: calls A and E, and the same with grid and warps (C, D, F).
NCU_METRICS=gpu__time_duration.sum,smsp__inst_executed.sum,smsp__issue_active.avg.pct_of_peak_sustained_active,dram__bytes.sum,launch__registers_per_thread,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio
NCU_METRICS_WIDE=$NCU_METRICS,launch__grid_size,sm__warps_active.avg.pct_of_peak_sustained_active

# probe_events DIR SHOW VARIANT...: 30 rounds of events a run into
# DIR/probe-VARIANT-ROUND.txt, shown by SHOW (cat, or a filter).
probe_events() {
  local dir=$1 show=$2 round v
  shift 2
  for round in 1 2; do
    for v in "$@"; do
      timeout 60 pack/probe_$v 30 > $dir/probe-$v-$round.txt 2>&1
      echo "$v $round rc $?"; $show $dir/probe-$v-$round.txt
    done
  done
}

# probe_ncu DIR METRICS VARIANT...: 15 casts and streams of a 3-round run
# under ncu into DIR/ncu-VARIANT-ROUND.csv.
probe_ncu() {
  local dir=$1 metrics=$2 round v
  shift 2
  for round in 1 2; do
    for v in "$@"; do
      timeout 100 ncu --clock-control none -k regex:"fp8_cast_kernel|stream_kernel" --launch-skip 10 --launch-count 15 \
        --metrics $metrics --csv pack/probe_$v 3 > $dir/ncu-$v-$round.csv 2> $dir/ncu-$v-$round.err
    done
  done
}

# racecheck_cast DIR: test_fp8_cast of the unpacked build under racecheck.
racecheck_cast() {
  CK_FORK=no timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 build/tests/test_fp8_cast > $1/racecheck.txt 2>&1
  echo "racecheck test_fp8_cast rc $?: $(tail -2 $1/racecheck.txt | tr '\n' ' ')"
}

# probe_kernel_names DIR BASE VARIANT: the cast kernels each build's ncu
# run profiled, by name (the head of VARIANT's first CSV kept).
probe_kernel_names() {
  head -3 $1/ncu-$3-1.csv | cut -c1-300 > $1/ncu-head.txt
  grep -o '"[^"]*fp8_cast_kernel[^"]*"' $1/ncu-$2-1.csv | sort | uniq -c | head
  grep -o '"[^"]*fp8_cast_kernel[^"]*"' $1/ncu-$3-1.csv | sort | uniq -c | head
}

# probe_measure DIR SHOW METRICS BASE VARIANT...: outputs compared with
# BASE's, then events, ncu and its summary for BASE and each VARIANT.
probe_measure() {
  local dir=$1 show=$2 metrics=$3
  shift 3
  probe_compare $dir "$@"
  probe_events $dir "$show" "$@"
  probe_ncu $dir $metrics "$@"
  python3 docs/bench/session27/ncu_summary.py $dir
}

# readme_run DIR: README's run as the call's first process (no tuning cache
# yet) into DIR/readme_run.txt, then test_readme_run into DIR/suite.txt.
# (Session 29's calls C and D ran it inline, and readme_table below with
# session 28's call D; both moved here afterwards, the commands unchanged.)
readme_run() {
  rm -rf $HOME/.cache/mnist-epilogs
  timeout 30 build/mnist_train --data-dir data/mnist --epochs 5 > $1/readme_run.txt 2>&1; echo "readme run rc $?"
  grep "^done" $1/readme_run.txt
  (cd build && timeout 60 ctest -R "test_readme_run" --output-on-failure) > $1/suite.txt 2>&1
  echo "test_readme_run: $(grep 'tests passed' $1/suite.txt)"
}

# readme_table DIR SECONDS TUNE_DIR: README's table, scripts/bench_compare.sh
# --no-layers --show-plans once into DIR (ReLU rows for PyTorch; torchao
# 0.18.0 installed from .whl/ for the fp8 rows), at most SECONDS, its tuning
# cache in TUNE_DIR.
readme_table() {
  local dir=$1 start=$SECONDS
  mkdir -p $dir
  python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site .whl/torchao-*.whl &&
    export PYTHONPATH=/tmp/site TORCHINDUCTOR_CACHE_DIR=/tmp/tcache
  BENCH_JSON_DIR=$dir TORCH_BENCH_FLAGS="--activations relu" MNIST_TUNE_CACHE_DIR=$3 \
    timeout $2 scripts/bench_compare.sh build --no-layers --show-plans > $dir/compare.log 2>&1
  echo "bench_compare: rc $? after $((SECONDS - start)) s"
  sed -n '/^ours (CUDA graphs)/,$p' $dir/compare.log | head -40 | cut -c1-175
}
