#!/usr/bin/env bash
# test_pytorch_scripts.sh SOURCE_DIR: the PyTorch scripts without PyTorch
# (hidden behind a stand-in package that fails to import, so the test means
# the same where torch is installed): eval_checkpoint_pytorch.py,
# replay_step_pytorch.py and bench_pytorch.py exit 3 saying what is missing
# and the pip command (a command run for an answer does not report success
# without one); before that, the checkpoints given must be regular files
# within the reader's bound: /dev/zero, a FIFO, a folder or a missing file
# exit 2 naming it, at once (run under a memory and a time limit, so a
# regression cannot take the machine down); scripts/bench_compare.sh,
# where PyTorch is optional, checks for it itself: it prints mnist_bench's
# table (a stand-in mnist_bench here), says PyTorch is not installed and
# how to install it, and exits 0. Needs python3 (exit 77 without it).
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
# run COMMAND...: with torch hidden, under 2 GB of address space and 60 s;
# output in $work/out, code in $code.
run() {
  (cd "$work" && ulimit -v 2000000 && PYTHONPATH="$work/notorch" timeout 60 "$@") \
    >"$work/out" 2>&1
  code=$?
  echo "--- $* (exit $code)"; sed 's/^/    /' "$work/out"
}
has() { grep -q -- "$1" "$work/out"; }

echo "not read without torch" >"$work/a.st"
cp "$work/a.st" "$work/b.st"
for script in "eval_checkpoint_pytorch.py a.st" \
              "replay_step_pytorch.py a.st b.st" "bench_pytorch.py"; do
  name="${script%% *}"
  # shellcheck disable=SC2086 # the script and its arguments
  run python3 "$src/scripts/"$script
  check "$name without torch: exit 3" test "$code" = 3
  check "$name without torch: says so, with the pip command" \
    has "^$name: needs torch: pip install torch"
done

# Files that are not a checkpoint: refused before torch is imported.
mkfifo "$work/fifo"
for script in "eval_checkpoint_pytorch.py|/dev/zero|found a character device" \
              "eval_checkpoint_pytorch.py|fifo|found a FIFO" \
              "replay_step_pytorch.py|a.st .|found a folder" \
              "replay_step_pytorch.py|fifo b.st|found a FIFO" \
              "eval_checkpoint_pytorch.py|missing.st|no such file"; do
  IFS='|' read -r name files words <<<"$script"
  # shellcheck disable=SC2086 # the files, split
  run python3 "$src/scripts/$name" $files
  check "$name $files: exit 2" test "$code" = 2
  check "$name $files: named, at once" has "^$name: .*$words"
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
