#!/usr/bin/env bash
# test_readme_flags.sh SRC BUILD: docs/usage.md documents every flag that
# mnist_train, mnist_bench and mnist_predict list in their usage, each in
# that program's own table under "## Flags", and states the --hidden limit
# the parser enforces; --help and --check-flags of all three exit 0.
set -uo pipefail
src="$1"; build="$2"
# shellcheck source=tests/shell_test_lib.sh
. "$src/tests/shell_test_lib.sh"
readme="$src/docs/usage.md"
# table PROGRAM: docs/usage.md's flag table of PROGRAM (mnist_train's is the
# first one under "## Flags").
table() {
  awk -v want="$1" '
    /^## Flags/ { on = 1; name = "mnist_train" }
    on && /^`mnist_bench` / { name = "mnist_bench" }
    on && /^`mnist_predict` / { name = "mnist_predict" }
    on && /^Flags are parsed strictly/ { exit }
    on && name == want && /^\| `--/ { print }' "$readme"
}
quiet() { "$@" >/dev/null 2>&1; }
for program in mnist_train mnist_bench mnist_predict; do
  usage="$("$build/$program" --help)"
  flags="$(grep -E '^(usage:|  --| +\[)' <<<"$usage" |
    grep -oE -- '--[a-z][a-z0-9-]*' | sort -u)"
  check "$program --help lists flags" test -n "$flags"
  rows="$(table "$program")"
  for flag in $flags --help; do
    check "docs/usage.md's $program table has $flag" grep -qF "| \`$flag" <<<"$rows"
  done
  extra=(); [ "$program" = mnist_predict ] && extra=(--model m.st)
  check "$program --check-flags exits 0" \
    quiet "$build/$program" --check-flags ${extra[@]+"${extra[@]}"}
done
# The limit --hidden enforces, as docs/usage.md says it.
refused="$("$build/mnist_train" --check-flags --hidden 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1 2>&1)"
limit="$(grep -oE 'expected 1 to [0-9]+' <<<"$refused" | grep -oE '[0-9]+$')"
check "--hidden with 16 widths is refused, naming the limit" test -n "$limit"
hidden_row="$(table mnist_train | grep -F '| `--hidden')"
check "docs/usage.md's --hidden row states the limit ($limit)" \
  grep -qF "1 to $limit layers" <<<"$hidden_row"
check "docs/usage.md's --hidden row does not promise any depth" \
  test -z "$(grep -F 'any depth' <<<"$hidden_row")"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
