#!/usr/bin/env bash
# test_check_format.sh SOURCE_DIR: scripts/check_format.sh on a scratch tree
# (a copy of the script and of the committed .clang-format): every *.c, *.h
# and *.cu under app/ bench/ checkpoint/ data/ examples/ gpu/ layers/ lt/ tests/ train/ is checked and nothing else;
# it passes on formatted files, fails (exit 1) listing exactly the files that
# differ, prints the clang-format version, changes no file, and says what to
# do when clang-format is missing. Also: ensure_deps.sh knows clang-format.
# Needs clang-format (exit 77 without it).
# shellcheck disable=SC2317 # functions called through check()
set -u
src="$1"
. "$src/tests/shell_test_lib.sh"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
run() { # run [VAR=VALUE...] -- ARGS...: output in $work/out, code in $code
  local envs=()
  while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
  (cd "$work" && env ${envs[@]+"${envs[@]}"} "$root/scripts/check_format.sh" "$@") >"$work/out" 2>&1
  code=$?
  echo "--- check_format.sh $* (exit $code)"; sed 's/^/    /' "$work/out"
}
has() { grep -q -- "$1" "$work/out"; }
listed() { grep -q -- "^  $1\$" "$work/out"; }

# ensure_deps.sh: clang-format is a name it checks by command.
# shellcheck disable=SC2123,SC1091 # no PATH on purpose; sourced from SOURCE_DIR
(PATH=/nonexistent; . "$src/scripts/ensure_deps.sh"; ! have_package clang-format)
check "ensure_deps: clang-format missing from PATH is missing" test $? = 0
if ! command -v clang-format >/dev/null; then
  echo "SKIP: clang-format is not installed"; exit 77
fi
# shellcheck disable=SC1091
(. "$src/scripts/ensure_deps.sh"; have_package clang-format)
check "ensure_deps: clang-format on PATH is there" test $? = 0

root="$work/root"
mkdir -p "$root/scripts" "$root/app" "$root/checkpoint" "$root/data" "$root/examples" "$root/gpu" "$root/layers" "$root/lt" "$root/tests" \
         "$root/bench" "$root/train" \
         "$root/other" "$root/build"
cp "$src/scripts/check_format.sh" "$root/scripts/" 2>/dev/null
cp "$src/.clang-format" "$root/"
good='int answer(void) {\n  return 42;\n}\n'
bad='int   answer (void){return 42;}\n'
for f in app/ok.c checkpoint/ok.c data/ok.h examples/ok.c gpu/ok.cu layers/ok.c lt/ok.c tests/ok.c bench/ok.c; do printf "%b" "$good" >"$root/$f"; done
# Not checked: other folders, other extensions.
for f in other/bad.c build/bad.c app/bad.txt app/bad.cpp; do printf "%b" "$bad" >"$root/$f"; done

run --
check "formatted: exit 0" test "$code" = 0
check "formatted: prints the clang-format version" has "clang-format version"
check "formatted: nine files checked" has "all 9 files"

for f in checkpoint/bad.c data/bad.h examples/bad.c gpu/bad.cu lt/bad.h tests/bad.c "app/with space.c" train/bad.c; do printf "%b" "$bad" >"$root/$f"; done
sum_before=$(cat "$root"/*/* | sha256sum)
run --
check "unformatted: exit 1" test "$code" = 1
check "unformatted: prints the clang-format version" has "clang-format version"
for f in checkpoint/bad.c data/bad.h examples/bad.c gpu/bad.cu lt/bad.h tests/bad.c "app/with space.c" train/bad.c; do
  check "unformatted: lists $f" listed "$f"
done
for f in app/ok.c checkpoint/ok.c data/ok.h examples/ok.c gpu/ok.cu layers/ok.c lt/ok.c tests/ok.c bench/ok.c other/bad.c build/bad.c app/bad.txt app/bad.cpp; do
  check "unformatted: does not list $f" eval "! has '$f'"
done
check "unformatted: counts them" has "8 of 17 files differ"
check "unformatted: says how to format them" has "clang-format -i"
check "unformatted: changes no file" test "$(cat "$root"/*/* | sha256sum)" = "$sum_before"

run CLANG_FORMAT=/no/such/clang-format --
check "no clang-format: exit 1" test "$code" = 1
check "no clang-format: says what to install" has "apt-get install clang-format"
check "no clang-format: names the way around" has "test.sh --no-format"

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
