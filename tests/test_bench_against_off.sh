#!/usr/bin/env bash
# test_bench_against_off.sh SOURCE_DIR BUILD_DIR: mnist_bench --against-off
# on the GPU (784-100-10, tf32, relu: fused, unfused and auto, one timed
# epoch per round). Every row's line ends with its epoch over its
# --autotune off twin's, "R.RRRx off's time (LO-HI; off MS ms, same
# launches)" with LO <= R <= HI, and its JSON entry has vs_off,
# vs_off_min, vs_off_max and off_ms_per_epoch equal to the line's and
# same_launches_as_off as the line says; a fused or unfused row whose
# algorithms are all cuBLASLt's first (algorithms_moved 0) launches what
# off launches (counted not run where the tuner moved every one); the
# header says how the rows were timed; --show-plans names the auto row's
# off twin's set in both makings, the same. Under --autotune off (off
# against itself) the header says so and the fused and unfused rows launch
# what their twins launch. The same run without the flag
# prints no such column and writes none of the keys. Needs a GPU, python3
# and the gzipped MNIST: exit 77, saying which, without them.
# shellcheck disable=SC2317 # functions called through check()
set -u
src="$1"
build="${2:-}"
# shellcheck source=tests/shell_test_lib.sh
. "$src/tests/shell_test_lib.sh"
bin="$build/mnist_bench"
[ -x "$bin" ] || { echo "SKIP: no mnist_bench in '$build'"; exit 77; }
need_command python3
find_data "$src"
[ -n "$mnist" ] || { echo "SKIP: no MNIST copy (set MNIST_DIR)"; exit 77; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

bench() { # bench NAME ARGS...: the seed network's tf32 relu rows
  local name="$1"; shift
  "$bin" --data-dir "$mnist" --network seed --precision tf32 --activation relu \
    --repeats 1 --no-layers --tune-cache off --json "$work/$name.json" "$@" \
    >"$work/$name.out" 2>&1
  code=$?
  grep -q "needs a CUDA GPU" "$work/$name.out" && { echo "SKIP: no GPU"; exit 77; }
  echo "--- mnist_bench $* (exit $code)"; sed 's/^/    /' "$work/$name.out"
}

bench off --against-off --show-plans
check "--against-off: exit 0" test "$code" = 0
check "--against-off: the header says how the rows were held to off" \
  grep -q "^against off: after its group, each row made again beside the same row under --autotune off" "$work/off.out"
# A row's line: network, then its batch (--show-plans' headings name the
# network too, without one).
rows() { grep -cE '^784-100-10 +256 ' "$1"; }
check "--against-off: three rows" test "$(rows "$work/off.out")" = 3
check "--against-off: every row's line ends with its ratio to off" \
  test "$(grep -cE "^784-100-10 .* [0-9]+\.[0-9]{3}x off's time \([0-9]+\.[0-9]{3}-[0-9]+\.[0-9]{3}; off [0-9]+\.[0-9]{2} ms, (same|other) launches\)\$" "$work/off.out")" = 3
check "--against-off: the auto row's off twin's set, the same in both makings" \
  grep -qE "^against off: its --autotune off twin's set ([0-9a-f]{8}), \\1: the same in both makings\$" "$work/off.out"
# Each row: lo <= ratio <= hi, all positive, and the JSON's keys as printed;
# exit 3 from the script: no fused or unfused row to hold to the same
# launches (the tuner moved every algorithm).
python3 - "$work/off.json" "$work/off.out" >"$work/py.out" 2>&1 <<'PY'
import json, re, sys
rows = json.load(open(sys.argv[1]))["training"]
lines = [l for l in open(sys.argv[2]) if re.match(r"784-100-10 +256 ", l)]
assert len(rows) == len(lines) == 3, (len(rows), len(lines))
same_checked = 0
for row, line in zip(rows, lines):
    r, lo, hi, ms, same = re.search(
        r"([0-9.]+)x off's time \(([0-9.]+)-([0-9.]+); off ([0-9.]+) ms, (same|other) launches\)$",
        line.strip()).groups()
    assert 0 < row["vs_off_min"] <= row["vs_off"] <= row["vs_off_max"], row
    for key, printed, within in (("vs_off", r, 0.0006), ("vs_off_min", lo, 0.0006),
                                 ("vs_off_max", hi, 0.0006), ("off_ms_per_epoch", ms, 0.006)):
        assert abs(row[key] - float(printed)) <= within, (key, row[key], printed)
    assert row["same_launches_as_off"] == (same == "same"), row
    if row["mode"] != "auto" and row["algorithms_moved"] == 0:
        assert row["same_launches_as_off"], ("first candidates, other launches", row)
        same_checked += 1
sys.exit(0 if same_checked else 3)
PY
py=$?
cat "$work/py.out"
check "--against-off: the JSON's keys are the lines'; first candidates launch as off" \
  test "$py" = 0 -o "$py" = 3
[ "$py" = 3 ] && skip "no fused or unfused row at cuBLASLt's first candidates to hold to off's launches"

# Under --autotune off the rows are off too: each against another making of
# itself (the comparison's floor); a fused or unfused row has no choice to
# make, so it launches exactly what its twin launches.
bench floor --against-off --autotune off
check "--against-off --autotune off: exit 0" test "$code" = 0
check "--against-off --autotune off: the header names the floor" \
  grep -q "off against another making of itself, the comparison's own floor" "$work/floor.out"
check "--against-off --autotune off: fused and unfused launch as their twins" \
  test "$(grep -cE "^784-100-10 +256 +(fused|unfused) .*, same launches\)\$" "$work/floor.out")" = 2

bench plain
check "without --against-off: exit 0" test "$code" = 0
check "without --against-off: three rows" test "$(rows "$work/plain.out")" = 3
check "without --against-off: no ratio to off" \
  test "$(grep -c "off's time" "$work/plain.out")" = 0
check "without --against-off: none of the --against-off keys" python3 -c '
import json, sys
keys = ("vs_off", "vs_off_min", "vs_off_max", "off_ms_per_epoch", "same_launches_as_off")
assert all(k not in r for r in json.load(open(sys.argv[1]))["training"] for k in keys)
' "$work/plain.json"

echo "$passed passed, $failed failed, $skipped not run"
[ "$failed" = 0 ] || exit 1
exit 0
