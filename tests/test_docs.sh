#!/usr/bin/env bash
# test_docs.sh SRC: README.md stays under 12 KB (12288 bytes), and every
# relative link in README.md, docs/*.md and tests/README.md names a file
# that exists; a link's #anchor names a heading of its target (GitHub's
# rule: lower case, punctuation dropped, spaces as dashes). Links inside
# fenced code blocks and http(s)/mailto links are not checked.
set -uo pipefail
src="$1"
# shellcheck source=tests/shell_test_lib.sh
. "$src/tests/shell_test_lib.sh"
limit=12288
size="$(wc -c <"$src/README.md")"
check "README.md is $size bytes, at most $limit" test "$size" -le "$limit"

# links FILE: each link target of FILE outside fenced code blocks, one a line.
links() {
  awk '/^```/ { fenced = !fenced; next } !fenced' "$1" |
    grep -oE '\]\([^) ]+\)' | sed -E 's/^\]\(//; s/\)$//'
}
# anchors FILE: the GitHub anchor of each heading of FILE, one a line.
anchors() {
  awk '/^```/ { fenced = !fenced; next } !fenced && /^#+ /' "$1" |
    sed -E 's/^#+ +//' | tr '[:upper:]' '[:lower:]' |
    sed -E 's/[^a-z0-9 _-]//g; s/ /-/g'
}
# resolves FILE TARGET: TARGET, relative to FILE's folder, exists, and its
# #anchor (if any) is a heading of the file it names.
resolves() {
  local file="$1" target="$2" path anchor
  path="${target%%#*}"
  anchor=""; [[ "$target" == *"#"* ]] && anchor="${target#*#}"
  if [ -z "$path" ]; then path="$file"; else path="$(dirname "$file")/$path"; fi
  [ -e "$path" ] || { echo "  $file: $target: no such file"; return 1; }
  [ -z "$anchor" ] && return 0
  [ -f "$path" ] && anchors "$path" | grep -qxF "$anchor" && return 0
  echo "  $file: $target: no heading with anchor #$anchor in $path"
  return 1
}
for file in "$src/README.md" "$src"/docs/*.md "$src/tests/README.md"; do
  if [ ! -f "$file" ]; then
    check "${file#"$src"/} exists" false
    continue
  fi
  count=0
  while read -r target; do
    case "$target" in http://* | https://* | mailto:*) continue ;; esac
    count=$((count + 1))
    check "${file#"$src"/} links to $target" resolves "$file" "$target"
  done < <(links "$file")
  echo "${file#"$src"/}: $count relative links"
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
