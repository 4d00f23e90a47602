#!/usr/bin/env bash
# test_bench_runs.sh SOURCE_DIR: scripts/bench_compare.sh --runs N without a
# GPU. The scripts are copied to a scratch folder beside a stand-in
# bench_pytorch.py, with a stand-in mnist_bench and a stand-in torch package
# that says it sees a GPU; each stand-in writes a known JSON whose numbers
# differ per run. --runs 3 must keep each run's JSON (ours-K.json,
# torch-K.json) in $BENCH_JSON_DIR, pass the flags after -- to mnist_bench
# (and --repeats to PyTorch), and print each row's median and range over the
# runs and each speedup as the median of the runs' speedups with its range;
# --runs 1 prints the one-run table; --runs 0, x, 101 or none are refused
# with exit 2 before anything runs; --within SECONDS stops starting runs
# when the next would not fit (and says so), --within 08 is 8, --within x is
# refused. Needs python3 (exit 77 without it).
# shellcheck disable=SC2317 # functions called through check()
set -u
src="$1"
# shellcheck source=tests/shell_test_lib.sh
. "$src/tests/shell_test_lib.sh"
need_command python3
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/scripts" "$work/build" "$work/fake/torch"
cp "$src/scripts/bench_compare.sh" "$src/scripts/bench_runs.py" "$src/scripts/plot_common.py" \
  "$work/scripts/"
cat >"$work/fake/torch/__init__.py" <<'PY'
class cuda:  # noqa: N801 (stands in for the torch.cuda module)
    @staticmethod
    def is_available():
        return True
PY
# Run K (counted in $work/count-ours, $work/count-torch) writes row values
# taken from the K-th word of each list; fused and auto fp32 for ours, graph
# and eager fp32 for PyTorch. Medians over 3 runs: fused 11, auto 9, graph 12,
# eager 100; speedups graph/fused 1.2, 1.0, 1.5 (median 1.20, not 12/11).
cat >"$work/build/mnist_bench" <<'SH2'
#!/bin/sh
k=$(($(cat "$WORK/count-ours" 2>/dev/null || echo 0) + 1)); echo "$k" >"$WORK/count-ours"
[ -z "${SLEEP:-}" ] || sleep "$SLEEP"
echo "ours: mnist_bench run $k: $*"
fused=$(echo "10 12 11" | cut -d' ' -f"$k"); auto=$(echo "9 9.5 8" | cut -d' ' -f"$k")
while [ $# -gt 0 ]; do
  [ "$1" = --json ] && cat >"$2" <<EOF
{"gpu": "Test GPU 9000", "training": [
 {"network": "784-100-10", "batch": 256, "mode": "fused", "precision": "fp32", "graphs": true, "ms_per_epoch": $fused},
 {"network": "784-100-10", "batch": 256, "mode": "auto", "precision": "fp32", "graphs": true, "ms_per_epoch": $auto},
 {"network": "784-100-10", "batch": 256, "mode": "fused", "precision": "fp32", "graphs": false, "ms_per_epoch": 99}]}
EOF
  shift
done
SH2
cat >"$work/scripts/bench_pytorch.py" <<'PY'
import os, sys
path = os.path.join(os.environ["WORK"], "count-torch")
k = int(open(path).read()) + 1 if os.path.exists(path) else 1
open(path, "w").write(str(k))
print(f"torch: bench_pytorch run {k}: {' '.join(sys.argv[1:])}")
graph, eager = (12, 12, 16.5)[k - 1], (90, 100, 110)[k - 1]
rows = [{"network": "784-100-10", "batch": 256, "precision": "fp32", "variant": v,
         "ms_per_epoch": ms} for v, ms in (("eager", eager), ("graph", graph))]
with open(sys.argv[sys.argv.index("--json") + 1], "w") as f:
    f.write(repr({"gpu": "Test GPU 9000", "training": rows}).replace("'", '"'))
PY
chmod +x "$work/build/mnist_bench"
run() { # run ARGS...: bench_compare.sh with the stand-ins; output in $work/out, code in $code
  rm -f "$work/count-ours" "$work/count-torch"
  (cd "$work" && WORK="$work" PYTHONPATH="$work/fake" BENCH_JSON_DIR="$work/json" \
    "$work/scripts/bench_compare.sh" "$@") >"$work/out" 2>&1
  code=$?
  echo "--- bench_compare.sh $* (exit $code)"; sed 's/^/    /' "$work/out"
}
has() { grep -q -- "$1" "$work/out"; }
lacks() { ! has "$1"; }
# row NAME MEDIAN RANGE [SPEEDUP SPEEDUP_RANGE]: the row printed with these
row() {
  grep -Eq -- "^784-100-10 +256 fp32 +$1 +3 +$2 +$3 +${4:--} +${5:--}\$" "$work/out"
}

run "$work/build" --runs 3 -- --repeats 2 --network seed
check "--runs 3: exit 0" test "$code" = 0
for k in 1 2 3; do
  check "--runs 3: ours-$k.json and torch-$k.json kept" \
    test -s "$work/json/ours-$k.json" -a -s "$work/json/torch-$k.json"
  check "--runs 3: run $k of mnist_bench got the flags after --" \
    has "mnist_bench run $k: --json $work/json/ours-$k.json --repeats 2 --network seed"
  check "--runs 3: run $k of PyTorch got --repeats" has "bench_pytorch run $k: .*--repeats 2"
done
check "--runs 3: no 4th run" test "$(cat "$work/count-ours")" = 3
check "--runs 3: says the runs share one machine and GPU" \
  has "over 3 runs; the runs share one machine and one GPU (Test GPU 9000)"
check "--runs 3: ours fused median, range, speedup median and range" \
  row "ours fused" 11.00 10.00-12.00 1.20x 1.00-1.50
check "--runs 3: ours auto" row "ours auto" 9.00 8.00-9.50 1.33x 1.26-2.06
check "--runs 3: ours best (auto in every run)" row "ours best" 9.00 8.00-9.50 1.33x 1.26-2.06
check "--runs 3: torch graph" row "torch graph" 12.00 12.00-16.50
check "--runs 3: torch eager" row "torch eager" 100.00 90.00-110.00
check "--runs 3: rows without graphs left out" lacks "99.00"

run "$work/build" --runs 1
check "--runs 1: exit 0" test "$code" = 0
check "--runs 1: JSON as ours.json, torch.json" \
  test -s "$work/json/ours.json" -a -s "$work/json/torch.json"
check "--runs 1: the one-run table, as without --runs" \
  grep -Eq "^784-100-10 +256 fp32 +10.00 +9.00 +9.00 auto +90.00 +12.00 +- +12.00 graph +1.33x +-\$" "$work/out"

for bad in 0 x 101 -3 ""; do
  run "$work/build" --runs "$bad"
  check "--runs '$bad': exit 2" test "$code" = 2
  check "--runs '$bad': says what was expected and found" \
    has "bench_compare.sh: --runs: expected a whole number of runs from 1 to 100, found '$bad'"
  check "--runs '$bad': nothing run" test ! -e "$work/count-ours"
done
run "$work/build" --runs
check "--runs without a value: exit 2" test "$code" = 2

# --within: runs of 2 s each (the stand-in sleeps) stop after the first
# under --within 1, and all run under --within 600.
SLEEP=2 run "$work/build" --runs 3 --within 1
check "--within 1: exit 0" test "$code" = 0
check "--within 1: one run only" test "$(cat "$work/count-ours")" = 1
check "--within 1: says it stopped and why" \
  has "bench_compare.sh: stopped after 1 of 3 runs: another (up to [0-9]* s) would pass --within 1"
check "--within 1: the table of the run done" \
  grep -Eq "^784-100-10 +256 fp32 +10.00 +9.00 +9.00 auto +90.00 +12.00 +- +12.00 graph +1.33x +-\$" "$work/out"
SLEEP=2 run "$work/build" --runs 2 --within 600
check "--within 600: both runs" test "$(cat "$work/count-ours")" = 2
# --within 08 is 8 (base 10, not a bad octal number that drops the limit):
# runs of 3 s stop before the third (at least 6 s done + 3 s > 8).
SLEEP=3 run "$work/build" --runs 3 --within 08
check "--within 08: exit 0" test "$code" = 0
check "--within 08: read as 8, so no third run" test "$(cat "$work/count-ours")" -lt 3
check "--within 08: says it stopped, with 8" \
  has "bench_compare.sh: stopped after [12] of 3 runs: another (up to [0-9]* s) would pass --within 8\$"
run "$work/build" --runs 2 --within x
check "--within x: exit 2, named" test "$code" = 2
check "--within x: says what was expected" has "bench_compare.sh: --within: expected whole seconds, found 'x'"

run "$work/build" --help
check "--help: exit 0" test "$code" = 0
check "--help: the script's own flags" has "--within SECONDS"
check "--help: nothing run" test ! -e "$work/count-ours"

# The merge helper itself: a --torch list of another length is refused.
(cd "$work" && python3 scripts/bench_runs.py --ours json/ours-1.json json/ours-2.json \
  --torch json/torch-1.json) >"$work/out" 2>&1
code=$?
check "bench_runs.py: 2 --ours, 1 --torch: exit 2" test "$code" = 2
check "bench_runs.py: 2 --ours, 1 --torch: says so" \
  has "expected one file per --ours file (2), found 1"

echo "$passed passed, $failed failed, $skipped not run"
[ "$failed" = 0 ] || exit 1
exit 0
