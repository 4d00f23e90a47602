#!/usr/bin/env bash
# test_plot_scripts.sh SOURCE_DIR: scripts/plot_log.py and
# scripts/plot_bench.py on small fixtures made in a scratch folder. With
# matplotlib each writes a PNG (checked by its signature); without it each
# exits 3 saying how to install it (checked always, with matplotlib hidden
# behind a stand-in package that fails to import). Bad input exits 2 naming
# the file (missing file, wrong header, no rows, bad JSON, nothing to draw,
# and anything but a regular file within 64 MiB: /dev/zero, a FIFO, a
# folder, a larger file; bench_runs.py too) and writes no picture, with or
# without matplotlib. Every script runs under a memory and a time limit.
# Needs python3 (exit 77 without it).
# shellcheck disable=SC2317 # functions called through check()
set -u
src="$1"
# shellcheck source=tests/shell_test_lib.sh
. "$src/tests/shell_test_lib.sh"
if ! command -v python3 >/dev/null; then
  echo "SKIP: python3 is not installed"; exit 77
fi
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
# run [VAR=VALUE...] -- SCRIPT ARGS...: output in $work/out, code in $code;
# under 2 GB of address space and 60 s, so a script that reads without
# bound fails alone (MemoryError) instead of taking the machine down.
run() {
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
  local script="$1"; shift
  (cd "$work" && ulimit -v 2000000 &&
    env ${envs[@]+"${envs[@]}"} timeout 60 python3 "$src/scripts/$script" "$@") >"$work/out" 2>&1
  code=$?
  echo "--- $script $* (exit $code)"; sed 's/^/    /' "$work/out"
}
has() { grep -q -- "$1" "$work/out"; }
is_png() { # the 8-byte PNG signature
  [ -s "$1" ] && [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]
}

# Fixtures.
header=epoch,train_loss,train_accuracy,test_loss,test_accuracy,train_ms,test_ms,samples_per_s
{ echo "$header"
  echo "1,0.204,0.9404,0.100,0.9681,26.2,1.40,2.29e+06"
  echo "2,0.0517,0.9838,0.0747,0.977,25.3,1.47,2.37e+06"
  echo "3,0.0177,0.9956,0.0578,0.9816,25.0,1.41,2.40e+06"; } >"$work/run-a.csv"
{ echo "$header"
  echo "1,0.210,0.9390,0.105,0.9670,30.1,1.50,1.99e+06"
  echo "2,0.0530,0.9830,0.0760,0.9760,29.0,1.52,2.07e+06"; } >"$work/run-b.csv"
echo "epoch,loss,accuracy" >"$work/wrong-header.csv"
echo "1,0.2,0.94" >>"$work/wrong-header.csv"
echo "$header" >"$work/no-rows.csv"
{ echo "$header"; echo "1,0.2,zero,0.1,0.96,26,1.4,2e6"; } >"$work/not-number.csv"
cat >"$work/ours.json" <<'EOF'
{
  "gpu": "Test GPU 9000",
  "training": [
    {"network": "784-100-10", "batch": 256, "mode": "fused", "precision": "fp32", "graphs": true, "ms_per_epoch": 11.36, "pad_units": false},
    {"network": "784-100-10", "batch": 256, "mode": "unfused", "precision": "fp32", "graphs": true, "ms_per_epoch": 11.59, "pad_units": false},
    {"network": "784-100-10", "batch": 256, "mode": "auto", "precision": "fp32", "graphs": true, "ms_per_epoch": 11.27},
    {"network": "784-100-10", "batch": 256, "mode": "fused", "precision": "bf16", "graphs": true, "ms_per_epoch": 9.31, "activation": "relu"},
    {"network": "784-100-10", "batch": 256, "mode": "auto+pad", "precision": "bf16", "graphs": true, "ms_per_epoch": 5.96, "pad_units": true},
    {"network": "784-100-10", "batch": 256, "mode": "fused", "precision": "fp32", "graphs": false, "ms_per_epoch": 15.80},
    {"network": "784-1024-1024-10", "batch": 256, "mode": "fused", "precision": "bf16", "graphs": true, "ms_per_epoch": 16.09},
    {"network": "784-1024-1024-10", "batch": 256, "mode": "fused", "precision": "bf16", "graphs": true, "ms_per_epoch": 15.45, "activation": "gelu"}
  ]
}
EOF
cat >"$work/torch.json" <<'EOF'
{"gpu": "Test GPU 9000", "torch": "0.0-test", "training": [
  {"network": "784-100-10", "batch": 256, "precision": "fp32", "variant": "eager", "ms_per_epoch": 215.9},
  {"network": "784-100-10", "batch": 256, "precision": "fp32", "variant": "graph", "ms_per_epoch": 33.3},
  {"network": "784-1024-1024-10", "batch": 256, "precision": "bf16", "variant": "graph", "ms_per_epoch": 30.8, "activation": "relu"}
]}
EOF
# A second run of the same rows (other numbers) and PyTorch's compiled rows.
sed 's/"ms_per_epoch": 1/"ms_per_epoch": 2/' "$work/ours.json" >"$work/ours-2.json"
cat >"$work/torch-2.json" <<'EOF'
{"gpu": "Test GPU 9000", "torch": "0.0-test", "training": [
  {"network": "784-100-10", "batch": 256, "precision": "fp32", "variant": "graph", "ms_per_epoch": 33.9},
  {"network": "784-100-10", "batch": 256, "precision": "fp32", "variant": "compiled", "compile_mode": "default", "ms_per_epoch": 30.5, "compiled": true, "compile_check": {"passed": true, "problems": []}},
  {"network": "784-100-10", "batch": 256, "precision": "fp32", "variant": "compiled", "compile_mode": "max-autotune-no-cudagraphs", "ms_per_epoch": 29.5, "compiled": true, "compile_check": {"passed": true, "problems": []}}
]}
EOF
# A compiled row that fell back: no proof.
sed 's/"compiled": true, "compile_check": {"passed": true, "problems": \[\]}/"compiled": false/' \
  "$work/torch-2.json" >"$work/torch-fallback.json"
printf '{"gpu": "x", "training": [\n' >"$work/truncated.json"
echo '[1, 2, 3]' >"$work/list.json"
echo '{"training": [{"network": "784-100-10", "mode": "fused"}]}' >"$work/no-batch.json"
cat >"$work/nothing.json" <<'EOF'
{"gpu": "x", "training": [
  {"network": "784-100-10", "batch": 256, "mode": "fused+pad", "precision": "bf16", "graphs": true, "ms_per_epoch": 6.6, "pad_units": true},
  {"network": "784-100-10", "batch": 256, "mode": "fused", "precision": "fp32", "graphs": false, "ms_per_epoch": 15.8},
  {"network": "784-100-10", "batch": 256, "mode": "fused", "precision": "fp32", "graphs": true, "ms_per_epoch": 11.9, "activation": "gelu"}
]}
EOF
# A stand-in matplotlib that fails to import, ahead of any real one.
mkdir -p "$work/nompl/matplotlib"
echo 'raise ImportError("matplotlib hidden by test_plot_scripts.sh")' >"$work/nompl/matplotlib/__init__.py"
nompl="PYTHONPATH=$work/nompl"

# Good input, with whatever matplotlib this machine has.
if python3 -c 'import matplotlib' 2>/dev/null; then
  run -- plot_log.py run-a.csv run-b.csv -o curves.png
  check "plot_log: exit 0" test "$code" = 0
  check "plot_log: curves.png is a PNG" is_png "$work/curves.png"
  run -- plot_bench.py ours.json --torch torch.json -o bench.png
  check "plot_bench: exit 0" test "$code" = 0
  check "plot_bench: bench.png is a PNG" is_png "$work/bench.png"
  run -- plot_bench.py ours.json ours-2.json --torch torch.json torch-2.json -o bench-runs.png
  check "plot_bench, two runs with compiled rows: exit 0" test "$code" = 0
  check "plot_bench, two runs with compiled rows: a PNG" is_png "$work/bench-runs.png"
  run -- plot_bench.py ours.json -o bench-ours.png
  check "plot_bench without --torch: exit 0" test "$code" = 0
  check "plot_bench without --torch: a PNG" is_png "$work/bench-ours.png"
else
  skip "matplotlib is not installed here: no picture drawn (pip install matplotlib)"
  run -- plot_log.py run-a.csv run-b.csv -o curves.png
  check "plot_log without matplotlib: exit 3" test "$code" = 3
  check "plot_log without matplotlib: says so" has "plot_log.py: needs matplotlib: pip install matplotlib"
  run -- plot_bench.py ours.json --torch torch.json -o bench.png
  check "plot_bench without matplotlib: exit 3" test "$code" = 3
  check "plot_bench without matplotlib: says so" has "plot_bench.py: needs matplotlib: pip install matplotlib"
fi

# Without matplotlib (hidden): exit 3 and the message, no picture.
rm -f "$work"/*.png
run "$nompl" -- plot_log.py run-a.csv -o curves.png
check "plot_log, matplotlib hidden: exit 3" test "$code" = 3
check "plot_log, matplotlib hidden: says so" has "^plot_log.py: needs matplotlib: pip install matplotlib$"
check "plot_log, matplotlib hidden: no picture" test ! -e "$work/curves.png"
run "$nompl" -- plot_bench.py ours.json --torch torch.json -o bench.png
check "plot_bench, matplotlib hidden: exit 3" test "$code" = 3
check "plot_bench, matplotlib hidden: says so" has "^plot_bench.py: needs matplotlib: pip install matplotlib$"
check "plot_bench, matplotlib hidden: no picture" test ! -e "$work/bench.png"

# Bad input: exit 2 naming the file, before matplotlib is needed, so with
# and without it alike.
# (envs: the environment of the pass, tag: its name in the checks)
bad_log() { # bad_log WHAT FILE MESSAGE [MORE FILES]
  local what="$1" file="$2" msg="$3"; shift 3
  run ${envs[@]+"${envs[@]}"} -- plot_log.py "$@" "$file" -o out.png
  check "plot_log $what$tag: exit 2" test "$code" = 2
  check "plot_log $what$tag: names $file" has "^plot_log.py: $file: $msg"
  check "plot_log $what$tag: no picture" test ! -e "$work/out.png"
}
bad_bench() { # bad_bench WHAT FILE MESSAGE ARGS...
  local what="$1" file="$2" msg="$3"; shift 3
  run ${envs[@]+"${envs[@]}"} -- plot_bench.py "$@" -o out.png
  check "plot_bench $what$tag: exit 2" test "$code" = 2
  check "plot_bench $what$tag: names $file" has "^plot_bench.py: $file: $msg"
  check "plot_bench $what$tag: no picture" test ! -e "$work/out.png"
}
mkfifo "$work/fifo.csv"
mkdir "$work/folder.json"
head -c $((64 * 1024 * 1024 + 1)) /dev/zero >"$work/huge.csv"
for env in "" "$nompl"; do
  tag=${env:+", matplotlib hidden"}
  # Only regular files within 64 MiB are read: /dev/zero once grew to 24 GB.
  bad_log "/dev/zero" /dev/zero "expected a log file of mnist_train --log, a regular file, found a character device"
  bad_log "a FIFO" fifo.csv "expected a log file .*, found a FIFO"
  bad_log "a file over 64 MiB" huge.csv "expected a log file .* of at most 67108864 bytes, found 67108865 bytes"
  bad_bench "/dev/zero" /dev/zero "expected a JSON file of mnist_bench --json, a regular file, found a character device" /dev/zero
  bad_bench "a folder" folder.json "expected a JSON file .*, found a folder" folder.json
  bad_bench "a --torch FIFO" fifo.csv "expected a JSON file .*, found a FIFO" ours.json --torch fifo.csv
  envs=(); [ -z "$env" ] || envs=("$env")
  bad_log "missing file" missing.csv "no such file"
  bad_log "missing file after a good one" missing.csv "no such file" run-a.csv
  bad_log "wrong header" wrong-header.csv "wrong header"
  bad_log "no rows" no-rows.csv "no rows"
  bad_log "not a number" not-number.csv "line 2: not a number"
  bad_bench "missing file" missing.json "no such file" missing.json
  bad_bench "missing --torch file" missing.json "no such file" ours.json --torch missing.json
  bad_bench "missing second run" missing.json "no such file" ours.json missing.json
  bad_bench "compiled without proof" torch-fallback.json "training row 2 (compiled fp32 784-100-10) is refused: a compiled row without proof" ours.json --torch torch-fallback.json
  bad_bench "bad JSON" truncated.json "bad JSON at line 2" truncated.json
  bad_bench "bad --torch JSON" truncated.json "bad JSON" ours.json --torch truncated.json
  bad_bench "not an object" list.json "no \"training\" list" list.json
  bad_bench "row without a field" no-batch.json "training row 1 has no \"batch\"" no-batch.json
  bad_bench "nothing to draw" nothing.json "no rows to draw" nothing.json
done

# One list of precisions, in the same order, in both readers of the
# benchmark (plot_bench.py once lacked fp8).
lists=$(cd "$src/scripts" && python3 -B -c 'import bench_runs, plot_bench
print(list(bench_runs.PRECISIONS) == list(plot_bench.PRECISIONS), list(plot_bench.PRECISIONS))')
check "plot_bench and bench_runs: the same precisions, fp8 included ($lists)" \
  test "$lists" = "True ['fp32', 'tf32', 'bf16', 'fp16', 'fp8']"

# A bar over several runs: their median, minimum and maximum, in any order.
spans=$(cd "$src/scripts" && python3 -B -c 'import plot_bench
print(plot_bench.over_runs([12.0, 10.0, 11.5]), plot_bench.over_runs([4.0, 2.0]), plot_bench.over_runs([7.0]))')
check "plot_bench: a bar is the median of its runs, the line min to max ($spans)" \
  test "$spans" = "(11.5, 10.0, 12.0) (3.0, 2.0, 4.0) (7.0, 7.0, 7.0)"

for ours in /dev/zero fifo.csv; do
  run -- bench_runs.py --ours "$ours"
  check "bench_runs --ours $ours: exit 2, at once" test "$code" = 2
  check "bench_runs --ours $ours: named" has "^bench_runs.py: $ours: expected a JSON file"
done

run -- plot_log.py run-a.csv -o "$work/no/such/folder/out.png"
check "plot_log, -o in a missing folder: exit 2" test "$code" = 2
check "plot_log, -o in a missing folder: says so" has "no folder"
run -- plot_log.py
check "plot_log, no arguments: exit 2" test "$code" = 2
run -- plot_bench.py ours.json
check "plot_bench, no -o: exit 2" test "$code" = 2
run "$nompl" -- plot_log.py --help
check "plot_log --help: exit 0 without matplotlib" test "$code" = 0
check "plot_log --help: shows the usage" has "usage: plot_log.py"
run "$nompl" -- plot_bench.py --help
check "plot_bench --help: exit 0 without matplotlib" test "$code" = 0
check "plot_bench --help: shows the usage" has "usage: plot_bench.py"

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
