#!/usr/bin/env bash
# test_interrupt.sh SOURCE_DIR BUILD_DIR: SIGINT and SIGTERM during a long
# mnist_train run (on the GPU, the real MNIST) with --log and --save over
# existing files: exit 130 / 143, a message saying where training stopped
# and that the files were left as they were, both files byte for byte as
# before, no temporary (FILE.partial-*, FILE.probe-*) left in the folder.
# Needs a GPU and the gzipped MNIST (MNIST_DIR or data/mnist): exit 77,
# saying which, without them.
# shellcheck disable=SC2317 # functions called through check()
set -u
src="$1"
build="${2:-}"
# shellcheck source=tests/shell_test_lib.sh
. "$src/tests/shell_test_lib.sh"
bin="$build/mnist_train"
[ -x "$bin" ] || { echo "SKIP: no mnist_train in '$build'"; exit 77; }
find_data "$src"
[ -n "$mnist" ] || { echo "SKIP: no MNIST copy (set MNIST_DIR)"; exit 77; }
work=$(mktemp -d)
pid=""
cleanup() {
  [ -n "$pid" ] && kill -KILL "$pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
has() { grep -q -- "$1" "$work/err"; }

# stop SIGNAL CODE WORDS: trains until the first epoch line, sends SIGNAL.
stop() {
  local signal="$1" want="$2" words="$3" t
  echo "old log, precious" >"$work/log.csv"
  echo "old model, precious" >"$work/model.st"
  (cd "$work" && exec "$bin" --data-dir "$mnist" --epochs 500 --log log.csv \
    --save model.st) >"$work/out" 2>"$work/err" &
  pid=$!
  for t in $(seq 1200); do
    grep -q '^ *1  ' "$work/out" && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if grep -q "training needs a CUDA GPU" "$work/err"; then
    echo "SKIP: no GPU here: $(cat "$work/err")"; wait "$pid"; pid=""; exit 77
  fi
  check "$signal: an epoch ran before the signal" grep -q '^ *1  ' "$work/out"
  kill "-$signal" "$pid"
  wait "$pid"; code=$?; pid=""
  echo "--- SIG$signal (exit $code)"; sed 's/^/    /' "$work/out" "$work/err"
  check "$signal: exit $want" test "$code" = "$want"
  check "$signal: says '$words'" has "$words"
  check "$signal: says where it stopped" has "stopped after [0-9]* of 500 epochs"
  check "$signal: says the files were left" has "log.csv and --save model.st left as they were"
  check "$signal: the log is as it was" test "$(cat "$work/log.csv")" = "old log, precious"
  check "$signal: the model is as it was" test "$(cat "$work/model.st")" = "old model, precious"
  check "$signal: no temporary left" \
    test "$(find "$work" -name '*.partial-*' -o -name '*.probe-*' | wc -l)" = 0
}
stop INT 130 "interrupted (SIGINT)"
stop TERM 143 "terminated (SIGTERM)"

echo "$passed passed, $failed failed, $skipped not run"
[ "$failed" = 0 ] || exit 1
exit 0
