#!/usr/bin/env bash
# test_bench_compare_args.sh SOURCE_DIR: scripts/bench_compare.sh's own
# arguments, without a GPU or PyTorch (a stand-in mnist_bench that logs its
# arguments and writes an empty table; torch hidden): --within=N is the
# script's flag, not mnist_bench's; --runs or --within given twice is
# refused (exit 2), not the last silently taken; a BUILD_DIR without
# mnist_bench is refused naming it (exit 2, not the shell's 127); numbers
# too long for bash's arithmetic are refused, not wrapped around into a
# run count or a time limit. Needs python3 (exit 77 without it).
# shellcheck disable=SC2317 # functions called through check()
set -u
src="$1"
# shellcheck source=tests/shell_test_lib.sh
. "$src/tests/shell_test_lib.sh"
need_command python3
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/notorch/torch" "$work/build"
echo 'raise ImportError("torch hidden by test_bench_compare_args.sh", name="torch")' \
  >"$work/notorch/torch/__init__.py"
cat >"$work/build/mnist_bench" <<'SH'
#!/bin/sh
echo "$*" >>"$WORK/calls"
while [ $# -gt 0 ]; do
  [ "$1" = --json ] && echo '{"training": []}' >"$2"
  shift
done
SH
chmod +x "$work/build/mnist_bench"
run() { # run ARGS...: output in $work/out, code in $code
  rm -f "$work/calls"
  (cd "$work" && WORK="$work" PYTHONPATH="$work/notorch" \
    timeout 60 "$src/scripts/bench_compare.sh" "$@") >"$work/out" 2>&1
  code=$?
  echo "--- bench_compare.sh $* (exit $code)"; sed 's/^/    /' "$work/out"
}
has() { grep -q -- "$1" "$work/out"; }
calls() { if [ -f "$work/calls" ]; then wc -l <"$work/calls"; else echo 0; fi; }

run "$work/build" --within=600 -- --repeats 2
check "--within=600: exit 0" test "$code" = 0
check "--within=600: mnist_bench got only its own flags" \
  grep -qx -- "--json [^ ]*/ours.json --repeats 2" "$work/calls"

for twice in "--runs 2 --runs 3" "--runs=2 --runs 3" "--within 5 --within=6"; do
  # shellcheck disable=SC2086 # the flags, split
  run "$work/build" $twice
  check "$twice: exit 2" test "$code" = 2
  check "$twice: said" has "bench_compare.sh: --[a-z]* given twice: expected it at most once"
  check "$twice: nothing run" test "$(calls)" = 0
done

run "$work/no-build"
check "a BUILD_DIR without mnist_bench: exit 2, not 127" test "$code" = 2
check "a BUILD_DIR without mnist_bench: named" \
  has "found no $work/no-build/mnist_bench"

for huge in "--runs 18446744073709551617" "--within 99999999999999999999" \
            "--within 86401"; do
  # shellcheck disable=SC2086 # the flag and its value
  run "$work/build" $huge
  check "$huge: exit 2" test "$code" = 2
  check "$huge: nothing run" test "$(calls)" = 0
done

echo "$passed passed, $failed failed, $skipped not run"
[ "$failed" = 0 ] || exit 1
exit 0
