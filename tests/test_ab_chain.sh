#!/usr/bin/env bash
# test_ab_chain.sh SOURCE_DIR: scripts/ab_chain.sh without a GPU. The script
# is copied to a scratch folder beside stand-ins: build/mnist_bench (known
# auto+pad rows per chain, a trace), build/mnist_train (a --log CSV) and an
# nvidia-smi that lists a GPU, or none. Checks: a whole run (the table, the
# best chain, the padding step, the bit checks, exit 0); --rounds 00, 0,
# 101, x or a number that would overflow, and --rounds or --log without a
# value, refused with exit 2 before anything runs (not "unbound variable");
# no GPU: exit 1 before anything runs; every run failing: the count said,
# the exit code capped at 125 (not the count modulo 256), and no "best
# chain" claimed when nothing was timed; --help prints the whole header
# comment and nothing else.
# shellcheck disable=SC2317 # functions called through check()
set -u
src="$1"
# shellcheck source=tests/shell_test_lib.sh
. "$src/tests/shell_test_lib.sh"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/scripts" "$work/build" "$work/smi"
cp "$src/scripts/ab_chain.sh" "$src/scripts/script_lib.sh" "$work/scripts/"
fake_nvidia_smi "$work/smi" # one GPU, or none with NOGPU set
# mnist_bench: with FAIL set, fails; else an auto+pad bf16 row whose
# us/step is lowest for the chain "trigger" (its seed row: 40 us), or a
# trace of both batch-256 networks with --trace-step.
cat >"$work/build/mnist_bench" <<'SH'
#!/bin/sh
echo "$*" >>"$WORK/calls"
[ -z "${FAIL:-}" ] || { echo "mnist_bench: failed (see above)" >&2; exit 1; }
c=""; net=""; trace=""
while [ $# -gt 0 ]; do
  case "$1" in
    --chain) c="$2"; shift ;;
    --network) net="$2"; shift ;;
    --trace-step) trace=1 ;;
  esac
  shift
done
if [ -n "$trace" ]; then
  for n in 784-100-10 784-1024-1024-10; do
    echo "## $n batch 256"
    echo "step, median of 200: traced 60.0 us, untraced 50.0 us"
    echo "critical path (12 kernels): a -> b"
  done
  exit 0
fi
us=50; [ "$c" = trigger ] && us=40
echo "network             batch  mode      prec  graph  ms/epoch  (min-max)  us/step  kernels"
echo "784-100-10            256  auto+pad  bf16  on       5.00  (5-5)  $us  12/9"
SH
# mnist_train: writes the --log it is given, the same rows every time.
cat >"$work/build/mnist_train" <<'SH'
#!/bin/sh
echo "$*" >>"$WORK/calls"
while [ $# -gt 0 ]; do
  [ "$1" = --log ] && printf 'epoch,train_loss\n1,0.5\n2,0.25\n' >"$2"
  shift
done
SH
chmod +x "$work/build/mnist_bench" "$work/build/mnist_train"
run() { # run ARGS...: ab_chain.sh with the stand-ins; output in $work/out, code in $code
  rm -rf "$work/calls" "$work/logs"
  (cd "$work" && WORK="$work" PATH="$work/smi:$PATH" OUT="$work/logs" \
    "$work/scripts/ab_chain.sh" "$@") >"$work/out" 2>&1
  code=$?
  echo "--- ab_chain.sh $* (exit $code)"; sed 's/^/    /' "$work/out" | head -30
}
has() { grep -q -- "$1" "$work/out"; }
lacks() { ! has "$1"; }
calls() { if [ -f "$work/calls" ]; then wc -l <"$work/calls"; else echo 0; fi; }

run --rounds 1
check "a whole run: exit 0" test "$code" = 0
check "a whole run: the best chain by seed us/step" has "best chain by seed us/step: trigger;"
check "a whole run: the padding step with it" has "| trigger+pad32 | seed | 32 |"
check "a whole run: the bit checks" has "unfused trigger: identical to none"
check "a whole run: no failures" has "failures: 0\$"

for bad in 00 0 101 x 99999999999999999999; do
  run --rounds "$bad"
  check "--rounds '$bad': exit 2" test "$code" = 2
  check "--rounds '$bad': says what was expected and found" \
    has "ab_chain.sh: --rounds: expected a whole number from 1 to 100, found '$bad'"
  check "--rounds '$bad': nothing run" test "$(calls)" = 0
done
for flag in --rounds --log; do
  run "$flag"
  check "$flag without a value: exit 2" test "$code" = 2
  check "$flag without a value: said, not 'unbound variable'" \
    has "ab_chain.sh: $flag: expected a value, found none"
  check "$flag without a value: nothing run" test "$(calls)" = 0
done

NOGPU=1 run --rounds 1
check "no GPU: exit 1" test "$code" = 1
check "no GPU: says so and why" has "ab_chain.sh: no GPU here: nvidia-smi -L lists no GPU"
check "no GPU: nothing run" test "$(calls)" = 0

FAIL=1 run --rounds 16
check "every run failing: exit 125, not the count modulo 256" test "$code" = 125
check "every run failing: the count said" has "failures: 198\$"
check "every run failing: no best chain claimed" has "best chain by seed us/step: none (nothing was timed)"
check "every run failing: the padding step skipped, said" has "no seed row was timed"

run --help
check "--help: exit 0" test "$code" = 0
code_at=$(grep -vn '^#' "$src/scripts/ab_chain.sh" | head -1 | cut -d: -f1)
header=$(sed -n "2,$((code_at - 1))p" "$src/scripts/ab_chain.sh" | sed 's/^# \{0,1\}//')
check "--help: the whole header comment, nothing else" test "$(cat "$work/out")" = "$header"
check "--help: ends with the exit code" has "256); 2 for bad arguments.\$"
check "--help: nothing run" test "$(calls)" = 0

echo "$passed passed, $failed failed, $skipped not run"
[ "$failed" = 0 ] || exit 1
exit 0
