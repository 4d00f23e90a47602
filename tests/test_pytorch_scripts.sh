#!/usr/bin/env bash
# test_pytorch_scripts.sh SOURCE_DIR: the PyTorch scripts without PyTorch
# (hidden behind a stand-in package that fails to import, so the test means
# the same where torch is installed): eval_checkpoint_pytorch.py,
# replay_step_pytorch.py and bench_pytorch.py exit 3 saying what is missing
# and the pip command (a command run for an answer does not report success
# without one); scripts/bench_compare.sh, where PyTorch is optional, checks
# for it itself: it prints mnist_bench's table (a stand-in mnist_bench
# here), says PyTorch is not installed and how to install it, and exits 0.
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
mkdir -p "$work/notorch/torch" "$work/build"
echo 'raise ImportError("torch hidden by test_pytorch_scripts.sh", name="torch")' \
  >"$work/notorch/torch/__init__.py"
# run COMMAND...: with torch hidden; output in $work/out, code in $code.
run() {
  (cd "$work" && PYTHONPATH="$work/notorch" "$@") >"$work/out" 2>&1
  code=$?
  echo "--- $* (exit $code)"; sed 's/^/    /' "$work/out"
}
has() { grep -q -- "$1" "$work/out"; }

for script in "eval_checkpoint_pytorch.py /nonexistent.st" \
              "replay_step_pytorch.py a.st b.st" "bench_pytorch.py"; do
  name="${script%% *}"
  # shellcheck disable=SC2086 # the script and its arguments
  run python3 "$src/scripts/"$script
  check "$name without torch: exit 3" test "$code" = 3
  check "$name without torch: says so, with the pip command" \
    has "^$name: needs torch: pip install torch"
done

# bench_compare.sh with a stand-in mnist_bench that writes an empty table.
cat >"$work/build/mnist_bench" <<'SH'
#!/bin/sh
echo "ours: the mnist_bench table"
while [ $# -gt 0 ]; do
  [ "$1" = --json ] && echo '{"training": []}' >"$2"
  shift
done
SH
chmod +x "$work/build/mnist_bench"
run "$src/scripts/bench_compare.sh" "$work/build"
check "bench_compare without torch: exit 0" test "$code" = 0
check "bench_compare without torch: mnist_bench's table" has "ours: the mnist_bench table"
check "bench_compare without torch: says PyTorch is missing and how to install it" \
  has "PyTorch.*pip install torch"

echo "$passed passed, $failed failed, $skipped not run"
[ "$failed" = 0 ] || exit 1
exit 0
