#!/usr/bin/env bash
# test_docs.sh SRC: README.md stays under 12 KB (12288 bytes), and every
# relative link in README.md, docs/*.md and tests/README.md names a file
# that exists; a link's #anchor names a heading of its target (GitHub's
# rule: lower case, punctuation dropped, spaces as dashes). Links inside
# fenced code blocks and http(s)/mailto links are not checked.
# The sources' comments too (C's /* */ and //, a script's # lines, Python's
# docstrings; every source file under the project's folders): a path
# under a project folder (lt/lt_matmul.h, docs/usage.md) names a file that
# exists, and a section named in README.md or docs/*.md (FILE, "Title";
# README (a heading); FILE section N or FILE §N; FILE#anchor) is a heading of
# that file, its numbering aside.
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

# comments FILE: the comment text of a source file, "LINE: TEXT" a line:
# C-family /* */ and //, a script's # lines, Python's docstrings and #.
comments() {
  case "$1" in
    *.c | *.h | *.cu | *.cpp | *.in)
      awk '{ line = $0; out = ""
             while (line != "") {
               if (inc) {
                 e = index(line, "*/")
                 if (e) { out = out " " substr(line, 1, e - 1); line = substr(line, e + 2); inc = 0 }
                 else { out = out " " line; line = "" }
               } else {
                 s = index(line, "/*"); d = index(line, "//")
                 if (d && (!s || d < s)) { out = out " " substr(line, d + 2); line = "" }
                 else if (s) { line = substr(line, s + 2); inc = 1 }
                 else line = ""
               } }
             if (out != "") print NR ": " out }' "$1" ;;
    *.py)
      awk '/"""/ { if (gsub(/"""/, "&") == 1) doc = !doc; print NR ": " $0; next }
           doc || /^[ \t]*#/ { print NR ": " $0 }' "$1" ;;
    *) awk '/^[ \t]*#/ { print NR ": " $0 }' "$1" ;;
  esac
}
# titles FILE: each heading's text, its numbering ("12. ") dropped.
titles() {
  awk '/^```/ { f = !f; next } !f && /^#+ /' "$1" | sed -E 's/^#+ +//; s/^[0-9]+\. //'
}
# names_file_or_section SOURCE REF: REF (a path, or a document and its
# section) names what exists.
names_file_or_section() {
  local file="$1" ref="$2" doc what t n
  case "$ref" in
    *.md* | README*) ;;
    *) [ -e "$src/$ref" ] || { echo "  $file: $ref: no such file"; return 1; }; return 0 ;;
  esac
  doc="${ref%%[ ,#]*}"; what="${ref#"$doc"}"; what="${what#,}"; what="${what# }"
  [ "$doc" != README ] || doc=README.md
  [ -f "$src/$doc" ] || { echo "  $file: $ref: no such file $doc"; return 1; }
  case "$what" in
    '') return 0 ;;
    \"*\" | \(*\)) t="${what:1:${#what}-2}"
      titles "$src/$doc" | grep -qF -- "$t" && return 0
      echo "  $file: $ref: no heading '$t' in $doc" ;;
    section* | §*) n="${what//[!0-9]/}"
      grep -qE "^#+ $n\. " "$src/$doc" && return 0
      echo "  $file: $ref: no section $n in $doc" ;;
    \#*) resolves "$src/$doc" "${what}" && return 0 ;;
  esac
  return 1
}
folders="app bench train checkpoint layers lt gpu data examples scripts tests tools"
path_re='(^|[^A-Za-z0-9_./-])(app|bench|train|checkpoint|layers|lt|gpu|data|examples|scripts|tests|docs|tools)/[A-Za-z0-9_./-]*[A-Za-z0-9_][.](c|h|cu|cpp|sh|py|md|txt|in|json|csv|png)([^A-Za-z0-9_]|$)'
section_re='(README(\.md)?|docs/[a-z_]+\.md|tests/README\.md)(,? ("[^"]+"|\([A-Z][^)]*\)|section [0-9]+|§ ?[0-9]+)|#[a-z0-9_-]+)'
sources=0; refs=0
while read -r file; do
  sources=$((sources + 1))
  text=$(comments "$src/$file")
  while read -r ref; do
    [ -n "$ref" ] || continue
    case "${ref##*/}" in NAME.* | FILE.* | DIR.* | PATH.*) continue ;; esac # placeholders
    refs=$((refs + 1))
    check "$file's comment names $ref" names_file_or_section "$file" "$ref"
  done < <({ grep -oE "$path_re" <<<"$text" | sed -E 's/^[^a-z]//; s/[^A-Za-z0-9_]$//'
             grep -oE "$section_re" <<<"$text"; } | sort -u)
done < <(cd "$src" && { echo CMakeLists.txt
  # shellcheck disable=SC2086 # the folders, split
  find $folders -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cpp' \
    -o -name '*.in' -o -name '*.sh' -o -name '*.py' -o -name CMakeLists.txt \) | sort; })
echo "sources: $sources files, $refs references to files and sections in their comments"
check "the sources' comments were read" test "$sources" -gt 100 -a "$refs" -gt 50
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
