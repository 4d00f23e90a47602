#!/usr/bin/env bash
# test_ab_rows.sh SOURCE_DIR: scripts/ab_rows.sh without a GPU. The script is
# copied to a scratch folder beside a stand-in build/mnist_bench that prints
# known rows per chain and round (and checks names as --check-flags does),
# with a stand-in nvidia-smi that lists a GPU, or none. Checks: the table
# (each chain's median and range, each ratio to the baseline as the median
# of the rounds' ratios with its range, and the words faster, slower,
# noise); fp8 rows kept like the others; --rounds 00, 101 or a number that
# would overflow, empty lists and names mnist_bench does not take refused
# with exit 2 before anything runs, --rounds 08 as 8; no GPU: exit 1 before
# anything runs; a run that succeeds but prints no rows counted as a
# failure, and a summary that crashes counted too; the exit code capped at
# 125 (200 failures do not read as 200 % 256); --help prints the header
# comment and nothing else.
# Needs python3 (exit 77 without it).
# shellcheck disable=SC2317 # functions called through check()
set -u
src="$1"
# shellcheck source=tests/shell_test_lib.sh
. "$src/tests/shell_test_lib.sh"
need_command python3
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/scripts" "$work/build" "$work/smi"
cp "$src/scripts/ab_rows.sh" "$src/scripts/script_lib.sh" "$work/scripts/"
fake_nvidia_smi "$work/smi" # one GPU, or none with NOGPU set
# The K-th call for one chain, network and precision is round K; it prints
# the K-th word of each mode's list. Over 3 rounds, chain none against all:
#   fused   none 10 12 11, all 8 12 10: medians 11 and 10; ratios 1.25 1 1.1
#   unfused none 20 20 20, all 25 25 25: ratios 0.8 (slower)
#   auto    none 10 10 10, all  5  5  5: ratios 2 (faster)
# FAIL=1: exit 1. NOROWS=CHAIN-PREC: that call prints no rows (exit 0).
# BADMS=1: a row whose ms/epoch is not a number.
cat >"$work/build/mnist_bench" <<'SH'
#!/bin/sh
c=""; net=""; p=""; a=""; check=""
while [ $# -gt 0 ]; do
  case "$1" in
    --chain) c="$2"; shift ;;
    --network) net="$2"; shift ;;
    --precision) p="$2"; shift ;;
    --activation) a="$2"; shift ;;
    --check-flags) check=1 ;;
  esac
  shift
done
if [ -n "$check" ]; then # the names mnist_bench takes; not a run
  case "$c" in ''|none|all|side-partials|sgd-lane|priorities|trigger) ;; *) bad="--chain $c" ;; esac
  case "$net" in ''|seed|mid|big) ;; *) bad="--network $net" ;; esac
  case "$p" in ''|fp32|tf32|bf16|fp16|fp8) ;; *) bad="--precision $p" ;; esac
  case "$a" in ''|relu|gelu) ;; *) bad="--activation $a" ;; esac
  [ -z "${bad:-}" ] || { echo "mnist_bench: ${bad%% *}: expected a known name, found '${bad#* }'" >&2; exit 2; }
  echo "mnist_bench: flags ok"
  exit 0
fi
f="$WORK/count-$c-$net-$p"
k=$(($(cat "$f" 2>/dev/null || echo 0) + 1)); echo "$k" >"$f"
echo "$k" >>"$WORK/calls"
[ -z "${FAIL:-}" ] || { echo "mnist_bench: failed (see above)" >&2; exit 1; }
if [ "${NOROWS:-}" = "$c-$p" ]; then
  echo "mnist_bench: skipping the $p gelu rows: not supported"
  exit 0
fi
case "$c" in
  all) fused="8 12 10"; unfused="25 25 25"; auto="5 5 5" ;;
  *) fused="10 12 11"; unfused="20 20 20"; auto="10 10 10" ;;
esac
i=$(((k - 1) % 3 + 1))
echo "network             batch  mode     prec  graph  ms/epoch   (min-max)"
for m in fused unfused auto; do
  eval "v=\$$m"
  ms=$(echo "$v" | cut -d' ' -f"$i")
  [ -z "${BADMS:-}" ] || ms="n/a"
  echo "784-100-10            256  $m    $p  on       $ms ($ms-$ms)      47.5"
done
SH
chmod +x "$work/build/mnist_bench"
run() { # run ARGS...: ab_rows.sh with the stand-in; output in $work/out, code in $code
  rm -rf "$work"/count-* "$work/calls" "$work/logs"
  (cd "$work" && WORK="$work" PATH="$work/smi:$PATH" \
    "$work/scripts/ab_rows.sh" --log "$work/logs" "$@") >"$work/out" 2>&1
  code=$?
  echo "--- ab_rows.sh $* (exit $code)"; sed 's/^/    /' "$work/out" | head -40
}
has() { grep -q -- "$1" "$work/out"; }
has_line() { grep -qxF -- "$1" "$work/out"; }
lacks() { ! has "$1"; }
calls() { if [ -f "$work/calls" ]; then wc -l <"$work/calls"; else echo 0; fi; }

run --rounds 3 --chains "none all" --networks seed --precisions fp32
check "3 rounds: exit 0" test "$code" = 0
check "3 rounds: 6 calls (2 chains x 3 rounds)" test "$(calls)" = 6
check "3 rounds: the header" has_line "| network | prec | act | mode | none | all |"
check "3 rounds: fused: medians, ranges, ratio median and range, noise" \
  has_line "| 784-100-10 | fp32 | relu | fused | 11.00 (10.00-12.00) | 10.00 (8.00-12.00) 1.100x (1.000-1.250) noise |"
check "3 rounds: unfused: slower" \
  has_line "| 784-100-10 | fp32 | relu | unfused | 20.00 (20.00-20.00) | 25.00 (25.00-25.00) 0.800x (0.800-0.800) slower |"
check "3 rounds: auto: faster" \
  has_line "| 784-100-10 | fp32 | relu | auto | 10.00 (10.00-10.00) | 5.00 (5.00-5.00) 2.000x (2.000-2.000) faster |"
check "3 rounds: no failures" has "failures: 0\$"
check "3 rounds: raw outputs kept" test -s "$work/logs/bench-all-seed-fp32-relu-r3.txt"

run --rounds 08 --chains none --networks seed --precisions fp32
check "--rounds 08: as 8 (exit 0)" test "$code" = 0
check "--rounds 08: 8 calls" test "$(calls)" = 8

run --rounds 2 --chains "none all" --networks seed --precisions fp8
check "--precisions fp8: exit 0" test "$code" = 0
check "--precisions fp8: its rows in the table" \
  has_line "| 784-100-10 | fp8 | relu | auto | 10.00 (10.00-10.00) | 5.00 (5.00-5.00) 2.000x (2.000-2.000) faster |"

for bad in 00 0 x -1 "" 101 99999999999999999999; do
  run --rounds "$bad"
  check "--rounds '$bad': exit 2" test "$code" = 2
  check "--rounds '$bad': says what was expected and found" \
    has "ab_rows.sh: --rounds: expected a whole number from 1 to 100, found '$bad'"
  check "--rounds '$bad': nothing run" test "$(calls)" = 0
done

for flag in chains networks precisions activations; do
  for empty in "" "  "; do
    run "--$flag" "$empty"
    check "--$flag '$empty': exit 2" test "$code" = 2
    check "--$flag '$empty': names the flag and what was found" \
      has "ab_rows.sh: --$flag: expected one or more names separated by spaces, found '$empty'"
    check "--$flag '$empty': nothing run" test "$(calls)" = 0
  done
done

for flag in rounds chains log; do
  run "--$flag"
  check "--$flag without a value: exit 2, said (not 'unbound variable')" \
    test "$code" = 2 -a "$(grep -c "ab_rows.sh: --$flag: expected a value, found none" "$work/out")" = 1
done

for bad in "chains|none bogus|--chain" "networks|seed huge|--network" \
           "precisions|bf16 fp64|--precision" "activations|relu tanh|--activation"; do
  IFS='|' read -r flag names option <<<"$bad"
  run --rounds 1 "--$flag" "$names"
  check "--$flag '$names': exit 2" test "$code" = 2
  check "--$flag '$names': names the list and mnist_bench's reason" \
    has "ab_rows.sh: --$flag: '${names#* }' is not a name mnist_bench takes: mnist_bench: $option"
  check "--$flag '$names': nothing run" test "$(calls)" = 0
done

NOGPU=1 run --rounds 1 --chains none --networks seed --precisions fp32
check "no GPU: exit 1" test "$code" = 1
check "no GPU: says so and why" has "ab_rows.sh: no GPU here: nvidia-smi -L lists no GPU"
check "no GPU: nothing run" test "$(calls)" = 0

NOROWS=all-bf16 run --rounds 1 --chains "none all" --networks seed --precisions "fp32 bf16"
check "a run without rows: exit 1 (one failure)" test "$code" = 1
check "a run without rows: says so" \
  has "ab_rows.sh: mnist_bench --chain all --network seed --precision bf16 --activation relu printed no rows: see"
check "a run without rows: the table shows it failed" has "| 784-100-10 | bf16 | relu | fused | .* | failed |"
check "a run without rows: counted" has "failures: 1\$"

BADMS=1 run --rounds 1 --chains "none all" --networks seed --precisions fp32
check "a summary that crashes: exit 1" test "$code" = 1
check "a summary that crashes: says so" has "ab_rows.sh: the summary of .*rows.tsv failed"
check "a summary that crashes: counted" has "failures: 1\$"

FAIL=1 run --rounds 100 --chains "none all" --networks seed --precisions fp32
check "200 failed runs: all run" test "$(calls)" = 200
check "200 failed runs: counted" has "failures: 200\$"
check "200 failed runs: exit 125, not 200 (256 would read as 0)" test "$code" = 125

run --help
check "--help: exit 0" test "$code" = 0
# The header: lines 2 up to the first that is not a comment, without "# ".
code_at=$(grep -vn '^#' "$src/scripts/ab_rows.sh" | head -1 | cut -d: -f1)
header=$(sed -n "2,$((code_at - 1))p" "$src/scripts/ab_rows.sh" | sed 's/^# \{0,1\}//')
check "--help: the header comment, nothing else" test "$(cat "$work/out")" = "$header"
check "--help: starts with the usage line" \
  test "$(head -1 "$work/out")" = "ab_rows.sh [--rounds N] [--chains \"A B ...\"] [--networks \"seed mid big\"]"
check "--help: no code" lacks "set -uo pipefail"
check "--help: nothing run" test "$(calls)" = 0

echo "$passed passed, $failed failed, $skipped not run"
[ "$failed" = 0 ] || exit 1
exit 0
