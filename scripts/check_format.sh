#!/usr/bin/env bash
# check_format.sh: checks that every C and CUDA source (*.c, *.h, *.cu under
# app/ bench/ checkpoint/ data/ examples/ gpu/ layers/ lt/ tests/ tools/ train/) is
# formatted as the committed .clang-format says (clang-format --dry-run --Werror); changes nothing.
# Prints the clang-format version used and the files that differ, with the
# command that formats them.
#
#   scripts/check_format.sh
#
# Environment: CLANG_FORMAT=PATH runs that clang-format instead of the one
# on PATH. Other clang-format versions format some constructs differently
# (the reference is the version CI installs, Debian's clang-format); to skip
# this check in the test run: scripts/test.sh --no-format.
# Exit code: 0 when every file is formatted, 1 when some file differs or
# clang-format cannot run.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
case "${1:-}" in
  -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
  "") ;;
  *) echo "check_format.sh: takes no arguments, found '$1'" >&2; exit 2 ;;
esac

cf="${CLANG_FORMAT:-clang-format}"
if ! command -v "$cf" >/dev/null; then
  echo "check_format.sh: $cf not found; install it (Debian: apt-get install clang-format)," >&2
  echo "  set CLANG_FORMAT=PATH, or skip the check with scripts/test.sh --no-format" >&2
  exit 1
fi
[ -f .clang-format ] || { echo "check_format.sh: no .clang-format in $root" >&2; exit 1; }
version="$("$cf" --version 2>&1 | head -n 1)"
echo "check_format.sh: $version ($(command -v "$cf")), style from $root/.clang-format"

dirs=()
for d in app bench checkpoint data examples gpu layers lt tests tools train; do [ -d "$d" ] && dirs+=("$d"); done
files=()
if [ ${#dirs[@]} -gt 0 ]; then
  while IFS= read -r -d '' f; do files+=("$f"); done < <(
    find "${dirs[@]}" -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' \) -print0 | sort -z)
fi
if [ ${#files[@]} -eq 0 ]; then
  echo "check_format.sh: no *.c, *.h or *.cu files under app/ bench/ checkpoint/ data/ examples/ gpu/ layers/ lt/ tests/ tools/ train/ in $root" >&2
  exit 1
fi

differ=()
err=$(mktemp); trap 'rm -f "$err"' EXIT
for f in "${files[@]}"; do
  if "$cf" --dry-run --Werror --style=file "$f" >/dev/null 2>"$err"; then continue; fi
  if grep -q -- '-Wclang-format-violations' "$err"; then
    differ+=("$f")
  else
    echo "check_format.sh: $cf could not check $f:" >&2
    sed 's/^/  /' "$err" >&2
    echo "  (another clang-format version than .clang-format expects? $version)" >&2
    exit 1
  fi
done

if [ ${#differ[@]} -gt 0 ]; then
  echo "check_format.sh: ${#differ[@]} of ${#files[@]} files differ from .clang-format:" >&2
  printf '  %s\n' "${differ[@]}" >&2
  echo "  format them (from $root): $cf -i$(printf ' %q' "${differ[@]}")" >&2
  exit 1
fi
echo "check_format.sh: all ${#files[@]} files formatted"
